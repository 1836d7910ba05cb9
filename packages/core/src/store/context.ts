/**
 * What the Store hands to the modules below it (FTS, maintenance): one connection, the
 * transaction runner with patience, and the environment. Modules below the Store depend on this
 * interface, never on the Store itself.
 */
import type { SqliteConnection, SqliteDriver, SqliteStatement } from "../driver.js";
import type { Host } from "../host/host.js";

export interface WriteOptions {
  /** Patience budget in ms for BUSY/LOCKED (default: the write patience). */
  patienceMs?: number;
  /** What the write stores, for the error when it cannot be (e.g. `the append of 3 messages to
   * session "s1"`). */
  what?: string;
}

export interface StoreContext {
  /** The store's single connection. */
  readonly conn: SqliteConnection;
  /** The driver that opened it (the admission lock must use the same SQLite build). */
  readonly driver: SqliteDriver;
  /** Path of the database file. */
  readonly path: string;
  /** True when opened read-only. */
  readonly readOnly: boolean;
  /** File-system host, when the adapter supplied one. */
  readonly host: Host | undefined;
  /** Cached prepared statement for `sql`. */
  statement(sql: string): SqliteStatement;
  /** Run `fn` in one write transaction, retrying the whole callback on BUSY/LOCKED. */
  write<T>(fn: () => T, options?: WriteOptions): T;
  /** Run a read, retrying on BUSY/LOCKED (DELETE-mode stores can block readers briefly). */
  read<T>(fn: () => T): T;
  /** Like `read`, inside one read transaction: every statement of `fn` sees
   * the same snapshot, whatever other processes commit meanwhile. */
  snapshot<T>(fn: () => T): T;
  /** Wall clock in ms (injectable so backoff can be tested). */
  now(): number;
}
