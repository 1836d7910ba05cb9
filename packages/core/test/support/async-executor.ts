/**
 * Test-only: an asynchronous executor over a real in-process connection, for proving the async
 * runner before a server engine exists. Every call is answered on a later turn of the event loop
 * (setImmediate), so an operation that forgot to await, or two callers whose statements would
 * interleave, show up as wrong results. Like a server client, a transaction owns the connection
 * until it ends: other callers' statements queue behind it.
 */
import { probeReadsTextWhole } from "../../src/binding-facts.js";
import type { SqliteConnection, SqliteStatement, SqlValue } from "../../src/driver.js";
import type {
  AsyncExecutor,
  AsyncStatements,
  AsyncTransactionOptions,
  ExecuteResult,
} from "../../src/engine/run-async.js";
import { beginTransaction, commitTransaction, rollbackQuietly } from "../../src/transaction.js";

/** Statements that answer rows; everything else is run for its changes. */
const RETURNS_ROWS = /^\s*(SELECT|PRAGMA|WITH|VALUES)\b|\bRETURNING\b/i;

export function asyncDouble(conn: SqliteConnection): AsyncExecutor & { statements: number } {
  const cache = new Map<string, SqliteStatement>();
  const later = () => new Promise<void>((resolve) => setImmediate(resolve));
  let tail: Promise<unknown> = Promise.resolve();
  /** One caller at a time on the connection, in call order. */
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const result = tail.then(fn);
    tail = result.catch(() => undefined);
    return result;
  };
  const direct: AsyncStatements = {
    async execute(sql: string, params: readonly SqlValue[]): Promise<ExecuteResult> {
      await later();
      double.statements++;
      if (params.length === 0 && /^\s*PRAGMA\s+incremental_vacuum\b/i.test(sql)) {
        // A server runs a statement to completion; better-sqlite3's run() steps it once, and this
        // pragma frees one page per step. exec() steps to the end.
        conn.exec(sql);
        return { rows: [], changes: 0, lastInsertRowid: 0 };
      }
      let statement = cache.get(sql);
      if (!statement) {
        statement = conn.prepare(sql);
        cache.set(sql, statement);
      }
      if (RETURNS_ROWS.test(sql)) return { rows: statement.all(...params), changes: 0, lastInsertRowid: 0 };
      const { changes, lastInsertRowid } = statement.run(...params);
      return { rows: [], changes, lastInsertRowid };
    },
  };
  const double = {
    statements: 0,
    readsTextWhole: probeReadsTextWhole(conn),
    execute: (sql: string, params: readonly SqlValue[]) => exclusive(() => direct.execute(sql, params)),
    transaction<T>(
      mode: "write" | "read",
      fn: (tx: AsyncStatements) => Promise<T>,
      options?: AsyncTransactionOptions,
    ): Promise<T> {
      return exclusive(async () => {
        await later();
        const keysOff = options?.foreignKeys === "off";
        if (keysOff) conn.exec("PRAGMA foreign_keys = OFF");
        try {
          beginTransaction(conn, mode);
          let result: T;
          try {
            result = await fn(direct);
            await later();
            commitTransaction(conn);
          } catch (error) {
            rollbackQuietly(conn);
            throw error;
          }
          return result;
        } finally {
          if (keysOff) conn.exec("PRAGMA foreign_keys = ON");
        }
      });
    },
  };
  return double;
}
