/**
 * Test-only: a minimal StoreContext over a real driver, with the Store's tables generated from
 * the schema definition, so the FTS module is tested on real SQLite files without the Store.
 */
import { createRequire } from "node:module";
import { STATEMENT_BUSY_TIMEOUT_MS } from "../../src/constants.js";
import type { SqliteConnection, SqliteDriver, SqliteStatement, SqlValue } from "../../src/driver.js";
import { SqliteError } from "../../src/errors.js";
import { withPatience } from "../../src/locks/patience.js";
import { schemaDdl } from "../../src/schema/ddl.js";
import { resultCodeFromMessage } from "../../src/sqlite-codes.js";
import type { StoreContext } from "../../src/store/context.js";
import { TransactionScope } from "../../src/transaction.js";
import { testDriver } from "./driver.js";

/** A test store: the context plus helpers. */
export interface TestStore {
  ctx: StoreContext;
  conn: SqliteConnection;
  /** Insert a message (session created on demand); returns its id. */
  add(message: {
    session?: string;
    source?: string;
    role?: string;
    content?: string | null;
    toolName?: string | null;
    toolCalls?: string | null;
    timestamp?: number;
  }): number;
  /** One row as an object. */
  get(sql: string, ...params: SqlValue[]): Record<string, SqlValue> | undefined;
  close(): void;
}

/** Open `path` (schema created when writable), as the Store would. */
export function openTestStore(
  path: string,
  options: { driver?: SqliteDriver; readOnly?: boolean; now?: () => number; patienceMs?: number } = {},
): TestStore {
  const driver = options.driver ?? testDriver;
  const readOnly = options.readOnly === true;
  const conn = driver.open(path, { readOnly });
  conn.exec(`PRAGMA busy_timeout = ${STATEMENT_BUSY_TIMEOUT_MS}`);
  if (!readOnly) {
    conn.exec("PRAGMA journal_mode = WAL");
    // The Store's own tables, from the schema definition (the FTS module reads them as they are).
    for (const statement of schemaDdl()) conn.exec(statement);
  }
  const cache = new Map<string, SqliteStatement>();
  const statement = (sql: string) => {
    let s = cache.get(sql);
    if (!s) {
      s = conn.prepare(sql);
      cache.set(sql, s);
    }
    return s;
  };
  const patience = { budgetMs: options.patienceMs ?? 5_000, jitter: "write" as const };
  const transactions = new TransactionScope(conn);
  const ctx: StoreContext = {
    conn,
    driver,
    path,
    readOnly,
    host: undefined,
    statement,
    write: (fn, writeOptions) =>
      withPatience(() => transactions.run("write", fn), {
        ...patience,
        budgetMs: writeOptions?.patienceMs ?? patience.budgetMs,
      }),
    read: (fn) => withPatience(fn, patience),
    snapshot: (fn) => withPatience(() => transactions.run("read", fn), patience),
    now: options.now ?? Date.now,
  };
  let clock = 1_700_000_000;
  return {
    ctx,
    conn,
    add(m) {
      const session = m.session ?? "s1";
      return ctx.write(() => {
        statement("INSERT OR IGNORE INTO sessions(id, source, started_at) VALUES (?, ?, 0)").run(
          session,
          m.source ?? "cli",
        );
        return statement(
          "INSERT INTO messages(session_id, role, content, tool_name, tool_calls, timestamp) VALUES (?, ?, ?, ?, ?, ?)",
        ).run(
          session,
          m.role ?? "user",
          m.content ?? null,
          m.toolName ?? null,
          m.toolCalls ?? null,
          m.timestamp ?? clock++,
        ).lastInsertRowid;
      });
    },
    get: (sql, ...params) => conn.prepare(sql).get(...params),
    close: () => conn.close(),
  };
}

/** Scribble over FTS5 shadow-table blocks with random bytes, as real damage would (a separate
 * connection of the same SQLite build with defensive mode off: shadow tables are protected). */
export function corruptFtsBlocks(path: string, table: string, where: string): void {
  const Database = createRequire(import.meta.url)("better-sqlite3") as typeof import("better-sqlite3");
  const db = new Database(path);
  try {
    db.unsafeMode(true);
    db.exec(`UPDATE ${table}_data SET block = randomblob(length(block)) WHERE ${where}`);
  } finally {
    db.close();
  }
}

/**
 * A fault-injecting wrapper around a real driver, for faults that cannot be produced for real on
 * this SQLite build (a missing tokenizer or module, a binding that reports only messages).
 * `reject(sql)` returns the error to throw instead of running `sql`; `mapError` rewrites errors
 * the real driver threw; `seen` records every SQL text run.
 */
export function faultyDriver(
  base: SqliteDriver,
  options: {
    reject?: (sql: string) => SqliteError | undefined;
    mapError?: (error: unknown) => unknown;
    seen?: string[];
  },
): SqliteDriver {
  const guard = <T>(sql: string, fn: () => T): T => {
    options.seen?.push(sql);
    const fault = options.reject?.(sql);
    if (fault) throw fault;
    try {
      return fn();
    } catch (error) {
      throw options.mapError ? options.mapError(error) : error;
    }
  };
  return {
    name: `${base.name}+faults`,
    open(path, flags) {
      const conn = base.open(path, flags);
      return {
        exec: (sql) => guard(sql, () => conn.exec(sql)),
        prepare(sql) {
          const statement = guard(sql, () => conn.prepare(sql));
          return {
            run: (...p) => guard(sql, () => statement.run(...p)),
            get: (...p) => guard(sql, () => statement.get(...p)),
            all: (...p) => guard(sql, () => statement.all(...p)),
          };
        },
        close: () => conn.close(),
      };
    },
  };
}

/** Like Deno's node:sqlite: the same errors, classified from their message text only. */
export function messageOnly(error: unknown): unknown {
  if (!(error instanceof SqliteError)) return error;
  return new SqliteError(resultCodeFromMessage(error.message), error.message, { cause: error });
}
