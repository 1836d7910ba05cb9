/**
 * Reads answered again from the connection's last answer while the database has not changed
 * (the `untilChange` flag of an `all` effect; the FTS status snapshot is one: read at the start
 * of every search, it changes only when an index is rebuilt, detached or migrated).
 *
 * "Not changed" is three counters read on the same connection before the rows:
 * - `PRAGMA data_version` moves when another connection (any process) committed since this
 *   connection last looked — but never for this connection's own commits;
 * - `total_changes()` counts every row this connection inserted, updated or deleted (trigger
 *   rows too), committed or not: its own writes to `state_meta`;
 * - `PRAGMA schema_version` moves with every schema change, this connection's own DDL included
 *   (which changes no row).
 * The counters are read first: rows read after them are at least as new, and any commit that
 * lands after the counters were read moves `data_version` by the next look.
 *
 * Only while the connection holds no write transaction (outside any transaction, or in a
 * `read` one): inside a write, a rolled-back schema change takes `schema_version` back to a value
 * a later change of this connection could reach again with other SQL, so rows read there could
 * be served for a state they do not describe. Sync connections only: an async executor (a
 * server's) may answer each call on another connection, whose counters say nothing of this one's.
 */
import type { Row, SqliteConnection, SqliteStatement, SqlValue } from "../driver.js";
import type { TransactionMode } from "../transaction.js";

/** What of the sync environment (run-sync.ts) the cache reads. */
interface Connection {
  readonly conn: SqliteConnection;
  readonly transactions: { readonly mode: TransactionMode | undefined };
  statement(sql: string): SqliteStatement;
}

/** Three statements, not one select of pragma functions: each `pragma_*()` function prepares
 * its pragma again on every call (measured with better-sqlite3: 4.7 µs against 3.1 µs). */
const DATA_VERSION = "PRAGMA data_version";
const SCHEMA_VERSION = "PRAGMA schema_version";
const TOTAL_CHANGES = "SELECT total_changes() AS c";

interface Answer {
  readonly params: readonly SqlValue[];
  readonly data: unknown;
  readonly schema: unknown;
  readonly changes: unknown;
  readonly rows: Row[];
}

/** The last answer per connection and SQL text. */
const answers = new WeakMap<object, Map<string, Answer>>();

/** The rows of `sql`: the connection's last answer to it while nothing changed, else read now.
 * The same array is returned again: callers must not change it. */
export function unchangedRows(env: Connection, sql: string, params: readonly SqlValue[]): Row[] {
  if (env.transactions.mode !== undefined && env.transactions.mode !== "read")
    return env.statement(sql).all(...params);
  const data = env.statement(DATA_VERSION).get()?.data_version;
  const schema = env.statement(SCHEMA_VERSION).get()?.schema_version;
  const changes = env.statement(TOTAL_CHANGES).get()?.c;
  let byConnection = answers.get(env.conn);
  const last = byConnection?.get(sql);
  if (
    last !== undefined &&
    last.data === data &&
    last.schema === schema &&
    last.changes === changes &&
    sameParams(last.params, params)
  )
    return last.rows;
  const rows = env.statement(sql).all(...params);
  if (!byConnection) {
    byConnection = new Map();
    answers.set(env.conn, byConnection);
  }
  byConnection.set(sql, { params: [...params], data, schema, changes, rows });
  return rows;
}

function sameParams(a: readonly SqlValue[], b: readonly SqlValue[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
