/**
 * The contracts an asynchronous engine implements (a libSQL server, the test double): statements,
 * transactions and the FTS admission. They sit below everything that uses them — the async
 * runner, the lock-file admission, the server packages — as the driver seam does for the
 * synchronous bindings.
 */
import type { Row, SqlValue } from "./driver.js";
import type { SqliteResultCode } from "./errors.js";

/** Who took the lock: diagnostics only, never used to decide anything. */
export interface AdmissionHolder {
  pid: number;
  runtime: string;
  host?: string;
  driver: string;
  /** ISO timestamp. */
  acquiredAt: string;
}

/** What one statement returns: its rows (empty for data statements), and for data statements
 * the rows changed and the last inserted rowid. */
export interface ExecuteResult {
  rows: Row[];
  changes: number;
  lastInsertRowid: number;
}

/** Statements on an asynchronous engine, inside a transaction or not. */
export interface AsyncStatements {
  execute(sql: string, params: readonly SqlValue[]): Promise<ExecuteResult>;
}

/** How a transaction of an async engine runs. */
export interface AsyncTransactionOptions {
  /**
   * `"off"`: foreign-key enforcement off on the transaction's connection from before its BEGIN
   * until after its end (SQLite ignores `PRAGMA foreign_keys` inside a transaction), and on again
   * afterwards. The open path asks for it for a schema change that rebuilds a table: the copy
   * keeps rows whose parent is gone, and dropping the old table must not cascade to child rows.
   * An engine that cannot do it leaves enforcement on; the rebuild then refuses to start (it
   * reads `PRAGMA foreign_keys` first) and the store opens with a schema warning.
   */
  readonly foreignKeys?: "off";
}

/**
 * What an engine implements for the async runner. One logical connection: statements outside a
 * transaction must not run inside another caller's open transaction (a client gives each
 * transaction its own stream; the test double queues). Errors are `SqliteError`s (see
 * `defineDriver`'s normalization): BUSY/LOCKED, CORRUPT, FULL, … are told apart by result code.
 */
export interface AsyncExecutor extends AsyncStatements {
  /** Run `fn` as one transaction, its statements through `tx`: `write` takes the write lock at
   * its start, `read` is one snapshot. Commits when `fn` resolves, rolls back when it rejects;
   * BUSY/LOCKED surfaces as a `SqliteError` so the runner can retry the whole body. With
   * `options.foreignKeys === "off"` (write only), see `AsyncTransactionOptions`. */
  transaction<T>(
    mode: "write" | "read",
    fn: (tx: AsyncStatements) => Promise<T>,
    options?: AsyncTransactionOptions,
  ): Promise<T>;
  /** Whether the engine reads TEXT past a NUL (it does unless its binding cuts it). */
  readonly readsTextWhole: boolean;
  /** Release the engine's connection (the async store's `close`). */
  close?(): Promise<void> | void;
}

/**
 * The FTS admission of an async store: at most one full index rebuild at a time across every
 * client of the database. An embedded store uses a lock file beside its database; a server
 * engine answers with what it has (a lease row, an advisory lock). A lost lease costs only
 * duplicate work: a rebuild is a re-seeded backfill whose steps are short write transactions
 * that interleave safely with another rebuilder's.
 */
export interface AsyncAdmission {
  /** Try to take it, polling up to `timeoutMs` while another client holds it (0: one try).
   * Never rejects for contention: the answer says whether the caller was admitted. */
  acquire(options: { timeoutMs: number }): Promise<AsyncAdmissionAnswer>;
}

/** What `acquire` answers. */
export type AsyncAdmissionAnswer =
  | { admitted: true; lease: AdmissionLease }
  | {
      admitted: false;
      /** "held": another client holds it until the timeout; "environment": it cannot be taken
       * at all, and waiting would not help. */
      reason: "held" | "environment";
      /** In words, naming the holder when known ("held by pid 42 on gw-3 since …"): this is the
       * `reason` of `rebuildFts`'s `{ rebuilt: false, blocked }` answer. */
      message: string;
      /** Who holds it, when the engine records that. */
      holder?: AdmissionHolder;
      /** The engine's result code when taking it failed ("FULL": a full disk, reported as
       * StoreFullError like a write). */
      code?: SqliteResultCode;
    };

/** A held admission. */
export interface AdmissionLease {
  /** Call at least this often while holding it (a lease that expires); absent: never. */
  readonly renewEveryMs?: number;
  /** Extend the lease. */
  renew(): Promise<void>;
  /** Give it up; idempotent, never rejects. */
  release(): Promise<void>;
}
