/**
 * The sync environment: what the sync runner performs effects on — one in-process connection,
 * its prepared statements and nesting transactions, the store's policy state, and the local
 * file's own work (journal policy, checkpoints, file modes, the admission lock file). Modules
 * below the Store are operations and never see it; the Store, backup and tests build it.
 */
import type { SqliteConnection, SqliteDriver, SqliteStatement } from "../driver.js";
import type { AdmissionOutcome, LocalAction } from "../engine/effects.js";
import type { SyncEnvironment } from "../engine/run-sync.js";
import type { Host } from "../host/host.js";
import { readJournalMode } from "../journal.js";
import { acquireAdmission } from "../locks/admission.js";
import { holdLocally } from "../locks/local-holds.js";
import type { StorePolicy } from "../policy/state.js";
import { TransactionScope } from "../transaction.js";

/** Varying statements kept per connection: a search's text changes with the query's shape (its
 * terms, filters, page), so the cache of fixed statements would grow without bound; the last few
 * cover a repeated search, whose prepare costs ~50 µs (5–10 % of a CJK search). */
export const VARYING_STATEMENTS = 16;

export interface StoreContext extends SyncEnvironment {
  /** The store's single connection. */
  readonly conn: SqliteConnection;
  /** The driver that opened it (the admission lock must use the same SQLite build). */
  readonly driver: SqliteDriver;
  /** Path of the database file. */
  readonly path: string;
  /** File-system host, when the adapter supplied one. */
  readonly host: Host | undefined;
  /** The store's policy state (policy/state.ts), what the `state` effect answers. */
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
  /** The admission of an embedded store: the lock file beside it (locks/admission.ts). */
  admitted(timeoutMs: number, body: () => unknown): AdmissionOutcome<unknown>;
  /** A `store.transaction` function, run with its lock recorded as held by this thread. */
  external(fn: (scope: unknown) => unknown): unknown;
  /** The local file's own work (`local` effects); without it they answer undefined. */
  local?(action: LocalAction): unknown;
  /** Wall clock in ms (injectable so backoff can be tested). */
  now(): number;
}

/** What a context is built from: its fields, without the statement cache and transactions. */
type ContextInit = Pick<StoreContext, "conn" | "driver" | "path" | "host" | "policy" | "now" | "local">;

/** A context over `conn`. */
export function createContext(init: ContextInit): StoreContext {
  return new ConnectionContext(init);
}

/** The context as a class: every store open builds one, and methods on a prototype cost that
 * open nothing, where an object literal made its closures and copied `init` field by field. */
class ConnectionContext implements StoreContext {
  readonly conn: SqliteConnection;
  readonly driver: SqliteDriver;
  readonly path: string;
  readonly host: Host | undefined;
  readonly policy: StorePolicy;
  readonly transactions: TransactionScope;
  readonly now: () => number;
  readonly local: ((action: LocalAction) => unknown) | undefined;
  readonly #statements = new Map<string, SqliteStatement>();
  /** Insertion order is recency: a hit moves its entry to the end. */
  readonly #varying = new Map<string, SqliteStatement>();

  constructor(init: ContextInit) {
    this.conn = init.conn;
    this.driver = init.driver;
    this.path = init.path;
    this.host = init.host;
    this.policy = init.policy;
    this.now = init.now;
    this.local = init.local;
    this.transactions = new TransactionScope(init.conn);
  }

  statement(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.conn.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  varyingStatement(sql: string): SqliteStatement {
    const varying = this.#varying;
    let statement = varying.get(sql);
    if (statement) varying.delete(sql);
    else {
      statement = this.conn.prepare(sql);
      if (varying.size >= VARYING_STATEMENTS) varying.delete(varying.keys().next().value as string);
    }
    varying.set(sql, statement);
    return statement;
  }

  clearStatements(): void {
    this.#statements.clear();
    this.#varying.clear();
  }

  /** The function runs with the transaction's lock recorded as held by this thread when that
   * lock keeps other connections from writing (locks/local-holds.ts): a write transaction's
   * always, a read-only store's only on a rollback-journal file (a WAL reader blocks no
   * writer). */
  external(fn: (scope: unknown) => unknown): unknown {
    if (!this.transactions.active || (this.policy.readOnly && readJournalMode(this.conn) === "wal")) {
      return fn(undefined);
    }
    const release = holdLocally(this.path, this.host, "a store.transaction() function that is still running");
    try {
      return fn(undefined);
    } finally {
      release();
    }
  }

  admitted(timeoutMs: number, body: () => unknown): AdmissionOutcome<unknown> {
    const admission = acquireAdmission(this.driver, this.path, { timeoutMs, host: this.host });
    if (!admission.admitted) {
      const { reason, message, code } = admission;
      return code === undefined
        ? { admitted: false, reason, message }
        : { admitted: false, reason, message, code };
    }
    const releaseHold = holdLocally(
      this.path,
      this.host,
      "an FTS rebuild of this file that is still running",
      "admission",
    );
    try {
      return { admitted: true, value: body() };
    } finally {
      releaseHold();
      admission.release();
    }
  }
}
