/**
 * The sync environment: what the sync runner performs effects on — one in-process connection,
 * its prepared statements and nesting transactions, the store's policy state, and the local
 * file's own work (journal policy, checkpoints, file modes, the admission lock file). Modules
 * below the Store are operations and never see it; the Store, backup and tests build it.
 */
import type { SqliteConnection, SqliteDriver, SqliteStatement } from "../driver.js";
import type { LocalAction } from "../engine/effects.js";
import type { Host } from "../host/host.js";
import { TransactionScope } from "../transaction.js";
import type { StorePolicy } from "./policy.js";

/** Varying statements kept per connection: a search's text changes with the query's shape (its
 * terms, filters, page), so the cache of fixed statements would grow without bound; the last few
 * cover a repeated search, whose prepare costs ~50 µs (5–10 % of a CJK search). */
export const VARYING_STATEMENTS = 16;

export interface WriteOptions {
  /** Patience budget in ms for BUSY/LOCKED (default: the write patience). */
  patienceMs?: number;
  /** What the write stores, for the error when it cannot be (e.g. `the append of 3 messages to
   * session "s1"`). */
  what?: string;
  /** Reads only: the operation handles SQLITE_CORRUPT itself (search falls back to LIKE and
   * detaches a corrupt index), so the runner passes it through instead of classifying it as
   * structural corruption, which would make the store read-only for good. */
  ownsCorruption?: boolean;
}

export interface StoreContext {
  /** The store's single connection. */
  readonly conn: SqliteConnection;
  /** The driver that opened it (the admission lock must use the same SQLite build). */
  readonly driver: SqliteDriver;
  /** Path of the database file. */
  readonly path: string;
  /** File-system host, when the adapter supplied one. */
  readonly host: Host | undefined;
  /** The store's policy state (store/policy.ts). */
  readonly policy: StorePolicy;
  /** The connection's transactions (nesting: savepoints inside). */
  readonly transactions: TransactionScope;
  /** Cached prepared statement for `sql`. */
  statement(sql: string): SqliteStatement;
  /** Prepared statement for SQL whose text varies with its input (a search's): only the last
   * VARYING_STATEMENTS such texts are kept, least recently used out first. */
  varyingStatement(sql: string): SqliteStatement;
  /** Forget the cached statements (before the connection closes). */
  clearStatements(): void;
  /** The local file's own work (`local` effects); without it they answer undefined. */
  local?(action: LocalAction): unknown;
  /** Wall clock in ms (injectable so backoff can be tested). */
  now(): number;
}

/** A context over `conn`. */
export function createContext(init: {
  conn: SqliteConnection;
  driver: SqliteDriver;
  path: string;
  host: Host | undefined;
  policy: StorePolicy;
  now: () => number;
  local?: (action: LocalAction) => unknown;
}): StoreContext {
  const statements = new Map<string, SqliteStatement>();
  // Insertion order is recency: a hit moves its entry to the end.
  const varying = new Map<string, SqliteStatement>();
  const { conn } = init;
  return {
    ...init,
    transactions: new TransactionScope(conn),
    statement(sql) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = conn.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
    varyingStatement(sql) {
      let statement = varying.get(sql);
      if (statement) varying.delete(sql);
      else {
        statement = conn.prepare(sql);
        if (varying.size >= VARYING_STATEMENTS) varying.delete(varying.keys().next().value as string);
      }
      varying.set(sql, statement);
      return statement;
    },
    clearStatements: () => {
      statements.clear();
      varying.clear();
    },
  };
}
