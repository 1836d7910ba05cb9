/**
 * The Store: the public API of spec §8. It owns the connection, the open sequence and the
 * transaction runner with patience; sessions, messages and usage (store/*.ts), schema, FTS,
 * locks and journal policy live below it and reach the connection only through its context.
 */
import { type BackupOptions, type BackupResult, backupStore } from "./backup/backup.js";
import { CHECKPOINT_EVERY_WRITES } from "./constants.js";
import type { SqliteConnection, SqliteDriver, SqliteStatement } from "./driver.js";
import { runSync } from "./engine/run-sync.js";
import {
  hasResultCode,
  InvalidInputError,
  SessionDbError,
  StoreClosedError,
  StoreCorruptError,
  StoreFullError,
  StoreOpenError,
  StoreReadOnlyError,
} from "./errors.js";
import type { BackfillProgress, FtsStatus, RebuildResult, SearchOptions, SearchResult } from "./fts/index.js";
import { FTS_STATE_KEYS, FtsIndex, ftsFingerprintText, ftsNeedsRepair } from "./fts/index.js";
import type { Host } from "./host/host.js";
import {
  checkJournalSafety,
  type JournalPolicyOptions,
  passiveCheckpoint,
  readJournalMode,
  readSqliteVersion,
  type SqliteJournalMode,
} from "./journal.js";
import { describeAdmissionHolder } from "./locks/admission.js";
import { type PatienceOptions, withPatience } from "./locks/patience.js";
import { META_FINGERPRINT } from "./schema/definition.js";
import { schemaFingerprint } from "./schema/fingerprint.js";
import type { StoreContext, WriteOptions } from "./store/context.js";
import { checkIntegrity } from "./store/integrity.js";
import * as messages from "./store/messages.js";
import {
  configureConnection,
  diskFullAt,
  hasRollbackJournal,
  initializeSchema,
  openFailure,
  preflight,
  probeReadOnly,
  protectFiles,
  readMeta,
  readOnlyBlockedReason,
  refuseNewerSchema,
} from "./store/open.js";
import { openSettings, storeDriver, storePath } from "./store/options.js";
import * as sessions from "./store/sessions.js";
import { readCounts, type StoreStats } from "./store/stats.js";
import type {
  CreateSessionInput,
  GetMessagesOptions,
  IntegrityReport,
  ListSessionsOptions,
  Message,
  MessageInput,
  Session,
  SessionSummary,
  StoreOptions,
  UpdateSessionInput,
  UsageInput,
  UsageRow,
} from "./store/types.js";
import * as usageRows from "./store/usage.js";
import * as valid from "./store/validate.js";
import { TransactionScope } from "./transaction.js";

const FINGERPRINT = schemaFingerprint(ftsFingerprintText());

/** Open (creating or upgrading when writable) the store at `path` through `driver`. */
export function createStore(driver: SqliteDriver, path: string, options?: StoreOptions | null): Store {
  return new Store(driver, path, options);
}

/** A sessiondb store on one SQLite file. Synchronous; one connection; not thread-shared. */
export class Store {
  /** Path of the database file. */
  readonly path: string;
  /** True when opened read-only. */
  readonly readOnly: boolean;
  /** Journal mode when the open finished ("wal" or "delete"). An open that raced the store's
   * creation and lost every switch to WAL says "delete"; the next slow-path open switches the
   * file, and this connection follows it into WAL on its next transaction. */
  readonly journalMode: SqliteJournalMode;
  /** Version of the SQLite library the driver runs. */
  readonly sqliteVersion: string;
  /** Name of the driver, e.g. "better-sqlite3". */
  readonly driverName: string;
  /** Schema reconcile problems from this open; non-empty means the store is behind this build. */
  readonly schemaWarnings: readonly string[];

  readonly #conn: SqliteConnection;
  readonly #host: Host | undefined;
  readonly #statements = new Map<string, SqliteStatement>();
  readonly #transactions: TransactionScope;
  readonly #patience: { openMs: number; writeMs: number; appendMs: number };
  readonly #now: () => number;
  readonly #fts: FtsIndex;
  readonly #ctx: StoreContext;
  #closed = false;
  #corrupt: StoreCorruptError | undefined;
  #writesSinceCheckpoint = 0;
  #wrote = false;

  constructor(driver: SqliteDriver, path: string, options?: StoreOptions | null) {
    // Every argument is checked before anything touches the file system: a rejected open
    // creates nothing.
    storeDriver(driver);
    this.path = storePath(path);
    const settings = openSettings(options);
    this.readOnly = settings.readOnly;
    this.driverName = driver.name;
    this.#host = settings.host;
    this.#now = settings.now;
    this.#patience = settings.patience;
    try {
      preflight(path, this.readOnly, this.#host);
    } catch (error) {
      // The host's own failures (a name too long, no permission to look) are the open's failure.
      if (error instanceof SessionDbError) throw error;
      throw new StoreOpenError(path, `the file system refused it (${(error as Error).message})`, {
        cause: error,
      });
    }
    let conn: SqliteConnection | undefined;
    let repairPending = false;
    try {
      conn = driver.open(path, { readOnly: this.readOnly });
      this.#conn = conn;
      this.#transactions = new TransactionScope(conn);
      const ready = conn;
      // Even `select sqlite_version()` reads the schema first, which a DELETE-mode writer's
      // exclusive lock blocks: the open patience covers it like the rest of the open.
      this.sqliteVersion = withPatience(
        () => {
          configureConnection(ready, this.readOnly);
          return readSqliteVersion(ready);
        },
        this.#readPatience(this.#patience.openMs, "open"),
      );
      this.#ctx = this.#context(driver);
      this.#fts = new FtsIndex(this.#ctx, {
        admissionTimeoutMs: settings.admissionTimeoutMs,
        recovery: settings.recoveryBackoff,
      });
      const opened = this.readOnly ? this.#openReadOnly() : this.#openWritable(settings.policy);
      this.journalMode = opened.journalMode;
      this.schemaWarnings = opened.warnings;
      repairPending = opened.repairPending;
    } catch (error) {
      try {
        conn?.close();
      } catch {
        // the open already failed; report that failure
      }
      throw openFailure(path, error, this.readOnly, this.#host);
    }
    if (repairPending && settings.repairFtsOnOpen) this.#fts.repairAtOpen();
  }

  #openReadOnly(): { journalMode: SqliteJournalMode; warnings: string[]; repairPending: boolean } {
    return withPatience(
      () => {
        probeReadOnly(this.#conn);
        return { journalMode: readJournalMode(this.#conn), warnings: [], repairPending: false };
      },
      this.#readPatience(this.#patience.openMs, "open"),
    );
  }

  #openWritable(options: JournalPolicyOptions): {
    journalMode: SqliteJournalMode;
    warnings: string[];
    repairPending: boolean;
  } {
    const policy = { ...options, sqliteVersion: options.sqliteVersion ?? this.sqliteVersion };
    return withPatience(
      () => {
        // Fast path: one query; a current store runs no DDL and takes no write lock. The meta
        // read comes first: its read transaction brings this connection up to date with a
        // sibling that switched the file to WAL since we connected, so the mode read after it
        // is the file's.
        const meta = readMeta(this.#conn, FTS_STATE_KEYS);
        const journalMode = checkJournalSafety(this.#conn, policy);
        refuseNewerSchema(meta);
        if (meta?.get(META_FINGERPRINT) === FINGERPRINT) {
          return { journalMode, warnings: [], repairPending: ftsNeedsRepair(meta) };
        }
        const result = initializeSchema(this.#conn, policy, {
          fingerprint: FINGERPRINT,
          installFts: () => this.#fts.install(),
        });
        protectFiles(this.path, this.#host);
        // The install marks a trigger-less index stale, so repair runs on this open or the next.
        return { ...result, repairPending: true };
      },
      { budgetMs: this.#patience.openMs, jitter: "open" },
    );
  }

  /** The view of this store that the modules below it get. */
  #context(driver: SqliteDriver): StoreContext {
    return {
      conn: this.#conn,
      driver,
      path: this.path,
      readOnly: this.readOnly,
      host: this.#host,
      statement: (sql) => this.#statement(sql),
      write: (fn, options) => this.#write(fn, options),
      read: (fn) => this.#read(fn),
      snapshot: (fn) => this.#read(() => this.#transactions.run("read", fn)),
      now: () => this.#now(),
    };
  }

  #statement(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#conn.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreClosedError();
  }

  #assertWritable(): void {
    this.#assertOpen();
    if (this.readOnly) throw new StoreReadOnlyError("it was opened with { readOnly: true }");
    if (this.#corrupt) throw this.#corrupt;
  }

  /** Refuse work that cannot be part of a caller's transaction (it runs transactions, waits or
   * files of its own). */
  #assertOutsideTransaction(method: string): void {
    if (this.#transactions.active) {
      throw new InvalidInputError(
        "transaction",
        `${method}() cannot run inside store.transaction(): it runs on its own; call it after the transaction returns`,
      );
    }
  }

  /** One write transaction, the whole callback retried on BUSY/LOCKED. Inside a caller's
   * `transaction` it joins that one (a savepoint): the caller's patience, retry and fail-open
   * cover it, and its commit is theirs. */
  #write<T>(fn: () => T, options?: WriteOptions): T {
    this.#assertWritable();
    if (this.#transactions.active) return this.#transactions.run("write", fn);
    let failedOpen = false;
    for (;;) {
      try {
        const result = withPatience(() => this.#transactions.run("write", fn), {
          budgetMs: options?.patienceMs ?? this.#patience.writeMs,
          jitter: "write",
          describeHolder: () => describeAdmissionHolder(this.path, this.#host),
        });
        this.#afterCommit();
        return result;
      } catch (error) {
        // FTS-scoped corruption: the index is detached and the canonical write retried once.
        if (!failedOpen && this.#fts.failOpen(error)) {
          failedOpen = true;
          continue;
        }
        throw this.#classifyFailure(error, options?.what);
      }
    }
  }

  #afterCommit(): void {
    this.#wrote = true;
    this.#writesSinceCheckpoint++;
    if (this.#writesSinceCheckpoint >= CHECKPOINT_EVERY_WRITES) {
      this.#writesSinceCheckpoint = 0;
      try {
        passiveCheckpoint(this.#conn);
      } catch {
        // The write is committed: reporting the checkpoint's failure (a full disk cannot grow the
        // database file) as the write's would make the caller retry a stored write. The WAL keeps
        // every commit; maintenanceTick and close checkpoint again.
      }
    }
  }

  /** Patience for reads. A read-only connection that meets a hot rollback journal (a DELETE-mode
   * writer died mid-transaction) gets SQLITE_READONLY: the next writable connection rolls the
   * journal back, so that is waited for like a lock. */
  #readPatience(budgetMs: number, jitter: "open" | "write"): PatienceOptions {
    if (!this.readOnly) return { budgetMs, jitter };
    return {
      budgetMs,
      jitter,
      retryable: (error) => hasResultCode(error, "READONLY") && hasRollbackJournal(this.path, this.#host),
      describeHolder: () =>
        hasRollbackJournal(this.path, this.#host)
          ? `Cause: ${readOnlyBlockedReason(this.path, this.#host)}.`
          : undefined,
    };
  }

  #read<T>(fn: () => T): T {
    this.#assertOpen();
    try {
      return withPatience(fn, this.#readPatience(this.#patience.writeMs, "write"));
    } catch (error) {
      throw this.#classifyFailure(error);
    }
  }

  /** READONLY → StoreReadOnlyError; a full disk → StoreFullError naming `what` was not stored;
   * structural corruption → sticky StoreCorruptError. */
  #classifyFailure(error: unknown, what = "the operation"): unknown {
    if (diskFullAt(error, this.path, this.#host)) return new StoreFullError(what, { cause: error });
    if (hasResultCode(error, "READONLY")) {
      return new StoreReadOnlyError(`SQLite refused the write (${error.message})`, { cause: error });
    }
    if (hasResultCode(error, "CORRUPT", "NOTADB")) {
      this.#corrupt ??= new StoreCorruptError(error.message, { cause: error });
      return this.#corrupt;
    }
    return error;
  }

  /**
   * Run `fn` as one atomic unit: every Store call it makes joins one write transaction (a read
   * transaction on a read-only store), committed when `fn` returns and rolled back entirely when
   * it throws. Same patience and retry as a single write: when the lock is busy the whole of
   * `fn` runs again, so keep effects outside the store out of it. Each Store call inside is
   * atomic on its own too (a savepoint), and a nested `transaction` joins the outer one. `fn`
   * must be synchronous; index maintenance, backups and `close` are refused inside it.
   */
  transaction<T>(fn: (store: this) => T): T {
    const body = valid.callback<(store: this) => T>(fn, "transaction.fn");
    this.#assertOpen();
    const run = (): T => {
      const result = body(this);
      if (typeof (result as { then?: unknown } | null)?.then === "function") {
        throw new InvalidInputError(
          "transaction.fn",
          "it returned a promise, but a transaction of this store cannot stay open across an await; the work it did before its first await was rolled back",
        );
      }
      return result;
    };
    if (this.#transactions.active) return this.#transactions.run(this.readOnly ? "read" : "write", run);
    if (this.readOnly) return this.#read(() => this.#transactions.run("read", run));
    return this.#write(run, { what: "the transaction's writes" });
  }

  // ── sessions, messages and usage (store/sessions.ts, store/messages.ts, store/usage.ts) ──

  /** Create a session, or fill in what an existing one lacks (stored non-null values are kept). */
  createSession(input: CreateSessionInput): Session {
    return runSync(this.#ctx, sessions.createSession(input));
  }

  /** The session, or undefined. */
  getSession(id: string): Session | undefined {
    return runSync(this.#ctx, sessions.getSession(id));
  }

  /** Sessions, newest first, with message count, last activity and a preview. */
  listSessions(options?: ListSessionsOptions | null): SessionSummary[] {
    return runSync(this.#ctx, sessions.listSessions(options));
  }

  /** Change title, archived, pinned or metadata. */
  updateSession(id: string, patch: UpdateSessionInput): Session {
    return runSync(this.#ctx, sessions.updateSession(id, patch));
  }

  /** Mark a session ended (the first end wins), at `at` (epoch seconds; default now). */
  endSession(id: string, reason: string, options?: { at?: number } | null): Session {
    return runSync(this.#ctx, sessions.endSession(id, reason, options));
  }

  /** Delete a session with its messages and usage; children keep living without a parent. */
  deleteSession(id: string): number {
    return runSync(this.#ctx, sessions.deleteSession(id));
  }

  /** Append one message; returns its id. */
  appendMessage(sessionId: string, message: MessageInput): number {
    return this.appendMessages(sessionId, [message])[0] as number;
  }

  /** Append messages in one transaction (transcript patience); returns their ids in order. */
  appendMessages(sessionId: string, list: MessageInput[]): number[] {
    return runSync(this.#ctx, messages.appendMessages(sessionId, list, this.#patience.appendMs));
  }

  /** Messages of a session in order. */
  getMessages(sessionId: string, options?: GetMessagesOptions | null): Message[] {
    return runSync(this.#ctx, messages.getMessages(sessionId, options));
  }

  /** Number of stored messages, in one session or in the whole store. */
  messageCount(sessionId?: string): number {
    return runSync(this.#ctx, messages.messageCount(sessionId));
  }

  /** Add token and cost counters for one (model, provider, base URL, billing mode, task). */
  recordUsage(sessionId: string, usage: UsageInput): void {
    runSync(this.#ctx, usageRows.recordUsage(sessionId, usage));
  }

  /** Usage rows of a session. */
  getUsage(sessionId: string): UsageRow[] {
    return runSync(this.#ctx, usageRows.getUsage(sessionId));
  }

  // ── full-text search (delegated to the FTS module) ──────────────────────────────────────

  /** Search messages; the result names the route that served it. */
  search(query: string, options?: SearchOptions | null): SearchResult {
    this.#assertOpen();
    return this.#fts.search(query, options ?? undefined);
  }

  /** State of the full-text index. */
  ftsStatus(): FtsStatus {
    this.#assertOpen();
    return this.#fts.status();
  }

  /** What is in the store: sessions, messages by role, tool calls, tokens and cost, counted in one
   * snapshot (store/stats.ts), and the FTS state. */
  stats(): StoreStats {
    this.#assertOpen();
    return { ...readCounts(this.#ctx), fts: this.#fts.status() };
  }

  /** Full FTS rebuild under the cross-process admission lock (fail-closed). */
  rebuildFts(options?: { timeoutMs?: number } | null): RebuildResult {
    const o = valid.options(options, "rebuildFts", ["timeoutMs"]);
    const timeoutMs = valid.durationOption(o.timeoutMs, "rebuildFts.timeoutMs");
    this.#assertWritable();
    this.#assertOutsideTransaction("rebuildFts");
    return this.#fts.rebuild({ timeoutMs });
  }

  /** Begin a chunked, resumable backfill of the index. */
  startFtsBackfill(): void {
    this.#assertWritable();
    this.#assertOutsideTransaction("startFtsBackfill");
    this.#fts.startBackfill();
  }

  /** Index one chunk of the backfill window; true while work remains. */
  ftsBackfillStep(options?: { chunkRows?: number } | null): boolean {
    const o = valid.options(options, "ftsBackfillStep", ["chunkRows"]);
    const chunkIds = valid.integerOption(
      o.chunkRows,
      "ftsBackfillStep.chunkRows",
      1,
      Number.MAX_SAFE_INTEGER,
    );
    this.#assertWritable();
    this.#assertOutsideTransaction("ftsBackfillStep");
    return this.#fts.backfillStep({ chunkIds });
  }

  /** Run the backfill to completion, yielding between chunks. Every failure, bad options
   * included, arrives as a rejection. */
  async backfillFts(
    options?: {
      onProgress?: (progress: BackfillProgress) => void;
      signal?: AbortSignal;
      chunkRows?: number;
    } | null,
  ): Promise<void> {
    const o = valid.options(options, "backfillFts", ["onProgress", "signal", "chunkRows"]);
    const onProgress = valid.callbackOption<(progress: BackfillProgress) => void>(
      o.onProgress,
      "backfillFts.onProgress",
    );
    const signal = valid.signalOption(o.signal, "backfillFts.signal");
    const chunkIds = valid.integerOption(o.chunkRows, "backfillFts.chunkRows", 1, Number.MAX_SAFE_INTEGER);
    this.#assertWritable();
    this.#assertOutsideTransaction("backfillFts");
    return this.#fts.backfill({ onProgress, signal, chunkIds });
  }

  /** Merge the FTS b-trees (FTS5 'optimize'). */
  optimizeFts(): void {
    this.#assertWritable();
    this.#assertOutsideTransaction("optimizeFts");
    this.#fts.optimize();
  }

  /** Retry a deferred FTS rebuild if due (call from the host's periodic tick); true when rebuilt. */
  retryDeferredFtsRecovery(): boolean {
    this.#assertOpen();
    this.#assertOutsideTransaction("retryDeferredFtsRecovery");
    if (this.readOnly || this.#corrupt) return false;
    return this.#fts.retryDeferredRecovery();
  }

  /** Periodic upkeep: deferred FTS recovery, a PASSIVE checkpoint, a bounded merge, one backfill step. */
  maintenanceTick(): void {
    this.#assertOpen();
    this.#assertOutsideTransaction("maintenanceTick");
    if (this.readOnly || this.#corrupt) return;
    try {
      this.#fts.retryDeferredRecovery();
      passiveCheckpoint(this.#conn);
      this.#fts.merge();
      if (this.#fts.backfillPending()) this.#fts.backfillStep();
    } catch (error) {
      throw this.#classifyFailure(
        error,
        "the maintenance work (deferred FTS recovery, WAL checkpoint, index merge, backfill step)",
      );
    }
  }

  /** `PRAGMA integrity_check`, FTS5 integrity-check on both indexes, docsize = source counts.
   * Reports corruption as problems rather than throwing (a damaged page can make the checks fail). */
  checkIntegrity(): IntegrityReport {
    this.#assertOpen();
    return checkIntegrity(this.#conn, this.#patience.writeMs, () => this.#fts.integrityProblems());
  }

  /** Copy the store, consistently while other processes keep writing, to a new private file
   * (backup/backup.ts). Never a file-system copy of the live file. */
  backup(destination: string, options: BackupOptions = {}): Promise<BackupResult> {
    this.#assertOpen();
    this.#assertOutsideTransaction("backup");
    return backupStore(this.#ctx, destination, options, (path) => {
      const copy = new Store(this.#ctx.driver, path, { readOnly: true, host: this.#ctx.host });
      try {
        return copy.ftsStatus();
      } finally {
        copy.close();
      }
    });
  }

  /** Close the store (PASSIVE checkpoint first when this store wrote). Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#assertOutsideTransaction("close");
    this.#closed = true;
    try {
      // Only a connection that wrote has WAL frames of its own to move; a reader's close stays cheap.
      // Not gated on `journalMode`: that is the mode at open, and a store that opened in DELETE
      // while racing its creation is WAL once a sibling switches it (a no-op in DELETE mode).
      if (this.#wrote && !this.#corrupt) passiveCheckpoint(this.#conn);
    } catch (error) {
      // A full disk cannot take the checkpoint's pages; every commit stays in the WAL, and the
      // next writer's checkpoint moves them. Closing loses nothing, so it does not fail for that.
      if (!diskFullAt(error, this.path, this.#host)) throw error;
    } finally {
      this.#statements.clear();
      this.#conn.close();
    }
  }
}
