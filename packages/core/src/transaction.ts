/**
 * The one transaction runner. Every BEGIN, COMMIT and ROLLBACK that sessiondb sends on an
 * in-process connection is written here (the savepoints of nested writes are an operation both
 * runners perform: engine/savepoint.ts): the Store's writes and snapshot reads, the open path's schema transaction, the
 * FTS corruption probe, repair's copies and lock probes, and the admission lock's hold on its
 * lock file. Patience (retrying a whole body on BUSY/LOCKED) wraps these calls from outside
 * (locks/patience.ts); this module only makes a body atomic.
 */
import type { SqliteConnection } from "./driver.js";

/** `write` takes the write lock at BEGIN (so a busy store fails before the body runs, and the
 * body can be retried whole); `read` is a snapshot; `exclusive` also keeps readers out (the
 * admission lock file, which is never WAL). */
export type TransactionMode = "write" | "read" | "exclusive";

const BEGIN: Record<TransactionMode, string> = {
  write: "BEGIN IMMEDIATE",
  read: "BEGIN",
  exclusive: "BEGIN EXCLUSIVE",
};

/** Open a transaction that the caller ends with `commitTransaction` or `rollbackQuietly` — for
 * locks held across work that is not a function body (the admission lock, repair's probes). */
export function beginTransaction(conn: SqliteConnection, mode: TransactionMode): void {
  conn.exec(BEGIN[mode]);
}

export function commitTransaction(conn: SqliteConnection): void {
  conn.exec("COMMIT");
}

/** ROLLBACK, ignoring "no transaction is active" (SQLite may have rolled back already, or the
 * BEGIN itself failed). */
export function rollbackQuietly(conn: SqliteConnection): void {
  try {
    conn.exec("ROLLBACK");
  } catch {
    // nothing to roll back
  }
}

/** Run `fn` in one transaction: commit when it returns, roll back when it throws. With
 * `{ rollback: true }` the transaction is always rolled back (probes that must leave nothing). */
export function inTransaction<T>(
  conn: SqliteConnection,
  mode: TransactionMode,
  fn: () => T,
  options?: { rollback?: boolean },
): T {
  conn.exec(BEGIN[mode]);
  let result: T;
  try {
    result = fn();
  } catch (error) {
    rollbackQuietly(conn);
    throw error;
  }
  if (options?.rollback) {
    rollbackQuietly(conn);
    return result;
  }
  try {
    conn.exec("COMMIT");
  } catch (error) {
    // A failed COMMIT (BUSY in DELETE mode, a full disk) can leave the transaction open; the
    // caller retries or reports, and either way must find the connection in autocommit.
    rollbackQuietly(conn);
    throw error;
  }
  return result;
}

/**
 * The transactions of one connection, nesting. The outermost `run` is a real transaction; a
 * call inside it joins it one level deeper (`nest`): the runner then runs a nested write inside
 * a savepoint (engine/savepoint.ts), a nested read simply runs (it already sees the outer
 * transaction's snapshot).
 */
export class TransactionScope {
  readonly #conn: SqliteConnection;
  #depth = 0;
  #mode: TransactionMode | undefined;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  /** True while a `run` body is executing. */
  get active(): boolean {
    return this.#depth > 0;
  }

  /** `run` as the outermost transaction with foreign-key enforcement off for its length (a schema
   * change that rebuilds tables: see `TransactionOptions`). SQLite ignores the pragma inside a
   * transaction, so it is switched before BEGIN and back after the end, whatever the outcome. */
  runWithoutForeignKeys<T>(mode: TransactionMode, fn: () => T): T {
    if (this.#depth > 0) throw new Error("foreign keys can only be switched off outside a transaction");
    this.#conn.exec("PRAGMA foreign_keys = OFF");
    try {
      return this.run(mode, fn);
    } finally {
      this.#conn.exec("PRAGMA foreign_keys = ON");
    }
  }

  /** The outermost transaction's mode, or undefined outside any (a read inside a `read` sees
   * only committed state: engine/unchanged-reads.ts answers such reads from its cache). */
  get mode(): TransactionMode | undefined {
    return this.#mode;
  }

  /** How many transactions deep the running body is (0: none). */
  get depth(): number {
    return this.#depth;
  }

  /** Run `fn` as the outermost transaction. */
  run<T>(mode: TransactionMode, fn: () => T): T {
    if (this.#depth > 0) throw new Error("a transaction is already open on this connection: nest instead");
    this.#depth++;
    this.#mode = mode;
    try {
      return inTransaction(this.#conn, mode, fn);
    } finally {
      this.#depth--;
      this.#mode = undefined;
    }
  }

  /** Run `fn` one transaction deeper, inside the open one (its savepoint is the caller's). */
  nest<T>(fn: () => T): T {
    this.#depth++;
    try {
      return fn();
    } finally {
      this.#depth--;
    }
  }
}
