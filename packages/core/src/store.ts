/**
 * The sync Store: the public API of spec §8 over one in-process connection. Its methods come from
 * the operations table (store/operations.ts), each run on the connection by the sync runner; this
 * class owns the connection, the open sequence's file-local steps, `transaction(fn)`,
 * `backfillFts`, `backup` and `close`.
 */
import type { BackupOptions, BackupResult } from "./backup/backup.js";
import { basenameOf } from "./backup/destination.js";
import { sqliteVersionOf } from "./binding-facts.js";
import { ADMISSION_TIMEOUT_MS, STATEMENT_BUSY_TIMEOUT_MS } from "./constants.js";
import type { SqliteConnection, SqliteDriver } from "./driver.js";
import type { LocalAction } from "./engine/effects.js";
import { runSync, runSyncYielding } from "./engine/run-sync.js";
import { hasResultCode, InvalidInputError, SessionDbError, StoreOpenError } from "./errors.js";
import { failOpen } from "./fts/corruption.js";
import { repairAtOpen } from "./fts/recovery.js";
import { dirnameOf, type Host } from "./host/host.js";
import {
  applyJournalPolicy,
  checkJournalSafety,
  type JournalPolicyOptions,
  passiveCheckpoint,
  type SqliteJournalMode,
} from "./journal.js";
import { describeAdmissionHolder } from "./locks/admission.js";
import { localHolder } from "./locks/local-holds.js";
import { withPatience } from "./locks/patience.js";
import { logsBeside, removeLogsMadeSince } from "./locks/reader-logs.js";
import type { DeleteSessionsOptions, DeleteSessionsResult } from "./maintenance/delete-sessions.js";
import type {
  ImportSessionInput,
  ImportSessionsOptions,
  ImportSessionsResult,
} from "./maintenance/import-sessions.js";
import type { VacuumOptions, VacuumResult } from "./maintenance/vacuum.js";
import type { Durability, StoreOptions } from "./model/types.js";
import * as valid from "./model/validate.js";
import { loadJobs, onDemand } from "./on-demand.js";
import { checkGuard, createPolicy, type PolicyEnvironment, readPatience } from "./policy/state.js";
import { isInMemoryPath } from "./sqlite-path.js";
import { createContext, type StoreContext } from "./store/context.js";
import {
  applyDurability,
  configureConnection,
  diskFullAt,
  hasRollbackJournal,
  openFailure,
  openSchema,
  preflight,
  protectFiles,
  readOnlyBlockedReason,
} from "./store/open.js";
import {
  type BackfillFtsOptions,
  backfillFts,
  installOperations,
  type StoreOperations,
  type SyncMethods,
  transactionOp,
} from "./store/operations.js";
import { openSettings, storeDriver, storePath } from "./store/options.js";

/** Open (creating or upgrading when writable) the store at `path` through `driver`. */
export function createStore(driver: SqliteDriver, path: string, options?: StoreOptions | null): Store {
  return new Store(driver, path, options);
}

/** A sessiondb store on one SQLite file. Synchronous; one connection; not thread-shared. Its
 * session, message, usage, search and index methods are the operations table's (`SyncMethods`). */
export interface Store extends SyncMethods<StoreOperations> {}

/** A sessiondb store on one SQLite file. Synchronous; one connection; not thread-shared. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface declares the operations table's methods, which the static block installs on the prototype
export class Store {
  static {
    installOperations(Store.prototype, (store, op) => runSync(store.#ctx, op));
  }

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
  /** What this connection's commits survive: "normal" only when `durability: "normal"` was asked
   * for and the store is writable in WAL mode, else "full" (see `Durability`). */
  readonly durability: Durability;

  readonly #ctx: StoreContext;

  constructor(driver: SqliteDriver, path: string, options?: StoreOptions | null) {
    // Every argument is checked before anything touches the file system: a rejected open
    // creates nothing.
    storeDriver(driver);
    this.path = storePath(path);
    const settings = openSettings(options);
    if (settings.readOnly && isInMemoryPath(path)) {
      // Each binding failed its own way here (a TypeError, a plain Error, or "no store yet").
      throw new InvalidInputError(
        "openStore.readOnly",
        `${JSON.stringify(path)} is an in-memory database, private to its connection and empty when opened, so a read-only one could never hold a store; open it writable, or give a file path`,
      );
    }
    this.readOnly = settings.readOnly;
    this.driverName = driver.name;
    const host = settings.host;
    try {
      preflight(path, this.readOnly, host);
    } catch (error) {
      // The host's own failures (a name too long, no permission to look) are the open's failure.
      if (error instanceof SessionDbError) throw error;
      throw new StoreOpenError(path, `the file system refused it (${(error as Error).message})`, {
        cause: error,
      });
    }
    // The name every later file-system step uses (a working directory changed since must not
    // move them); the public `path` stays as the caller spelled it.
    const file = absoluteName(path, host);
    const environment = localPolicyEnvironment(file, this.readOnly, host);
    const policy = createPolicy(
      {
        ...settings,
        admissionTimeoutMs: settings.admissionTimeoutMs ?? ADMISSION_TIMEOUT_MS,
        failOpen,
        // Its calls are serial: nothing to group.
        groupsWrites: false,
      },
      environment,
    );
    let conn: SqliteConnection | undefined;
    let repairPending = false;
    // A read-only connection that fails leaves the -wal and -shm it made (locks/reader-logs.ts);
    // a writable one's close deletes its own.
    const logs = this.readOnly && host && !isInMemoryPath(path) ? logsBeside(host, path) : undefined;
    try {
      conn = driver.open(path, { readOnly: this.readOnly });
      // The file as opened (SQLite has created it by now): every write checks it is still there.
      if (host && !this.readOnly) environment.fileMoved = fileMovedCheck(path, host);
      const ready = conn;
      // The connection's first statement reads the schema, which a DELETE-mode writer's
      // exclusive lock blocks: the open patience covers it like the rest of the open. The
      // version is the driver's (binding-facts.ts): asked once per process, not per open.
      this.sqliteVersion = withPatience(
        () => {
          configureConnection(ready, this.readOnly);
          return sqliteVersionOf(driver, ready);
        },
        { ...readPatience(policy, settings.patience.openMs, "open"), now: settings.now },
      );
      const journal = {
        ...settings.policy,
        sqliteVersion: settings.policy.sqliteVersion ?? this.sqliteVersion,
      };
      this.#ctx = createContext({
        conn,
        driver,
        path: file,
        host,
        policy,
        now: settings.now,
        local: (action) => localFileWork(ready, file, host, journal, action),
      });
      const opened = runSync(this.#ctx, openSchema());
      this.journalMode = opened.journalMode;
      this.schemaWarnings = opened.warnings;
      this.durability = applyDurability(ready, settings.durability, this.readOnly, opened.journalMode);
      repairPending = opened.repairPending;
    } catch (error) {
      try {
        conn?.close();
      } catch {
        // the open already failed; report that failure
      }
      const failure = openFailure(path, error, this.readOnly, host);
      if (host) removeLogsMadeSince(driver, host, path, logs);
      throw failure;
    }
    if (repairPending && settings.repairFtsOnOpen) runSync(this.#ctx, repairAtOpen());
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
    return runSync(this.#ctx, transactionOp(run)) as T;
  }

  /** Run the backfill to completion, yielding between chunks. Every failure, bad options
   * included, arrives as a rejection. */
  backfillFts(options?: BackfillFtsOptions | null): Promise<void> {
    return runSyncYielding(this.#ctx, backfillFts(options));
  }

  /** Delete many sessions, each whole or not at all, in paced steps that let other writers in
   * between (store/delete-sessions.ts). Every failure, bad input included, arrives as a
   * rejection. */
  deleteSessions(
    ids: readonly string[],
    options?: DeleteSessionsOptions | null,
  ): Promise<DeleteSessionsResult> {
    return runSyncYielding(
      this.#ctx,
      onDemand("deleteSessions", (jobs) => jobs.deleteSessions(ids, options)),
    );
  }

  /** Write many whole sessions (an import) in paced steps that let other writers in between;
   * each session is written whole or refused alone (store/import-sessions.ts). Every
   * failure, bad input included, arrives as a rejection. */
  importSessions(
    items: Iterable<ImportSessionInput> | AsyncIterable<ImportSessionInput>,
    options?: ImportSessionsOptions | null,
  ): Promise<ImportSessionsResult> {
    return runSyncYielding(
      this.#ctx,
      onDemand("importSessions", (jobs) => jobs.importSessions(items, options)),
    );
  }

  /** Give the space of deleted rows back to the file system in paced steps that never stall
   * other writers for long (maintenance/vacuum.ts); `{ full: true }` rewrites the whole store
   * instead. Every failure, bad options included, arrives as a rejection. */
  vacuum(options?: VacuumOptions | null): Promise<VacuumResult> {
    return runSyncYielding(
      this.#ctx,
      onDemand("vacuum", (jobs) => jobs.vacuum(options)),
    );
  }

  /** Copy the store, consistently while other processes keep writing, to a new private file
   * (backup/backup.ts). Never a file-system copy of the live file. Every failure, bad options
   * and a closed store included, arrives as a rejection. */
  async backup(destination: string, options?: BackupOptions | null): Promise<BackupResult> {
    // Refused inside a transaction at the call, before the backup's code loads (on-demand.ts).
    checkGuard(this.#ctx.policy, "open", this.#ctx.transactions.active, "backup");
    const jobs = await loadJobs();
    return jobs.backupStore(this.#ctx, destination, jobs.backupOptions(options), (path) => {
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
    const ctx = this.#ctx;
    const state = ctx.policy;
    if (state.closed) return;
    checkGuard(state, "open", ctx.transactions.active, "close");
    state.closed = true;
    try {
      // Only a connection that wrote has WAL frames of its own to move; a reader's close stays cheap.
      // Not gated on `journalMode`: that is the mode at open, and a store that opened in DELETE
      // while racing its creation is WAL once a sibling switches it (a no-op in DELETE mode).
      if (state.wrote && !state.corrupt) passiveCheckpoint(ctx.conn);
    } catch (error) {
      // A full disk cannot take the checkpoint's pages; every commit stays in the WAL, and the
      // next writer's checkpoint moves them. Closing loses nothing, so it does not fail for that.
      if (!diskFullAt(error, ctx.path, ctx.host)) throw error;
    } finally {
      ctx.clearStatements();
      ctx.conn.close();
    }
  }
}

/** A path that does not depend on the working directory: on POSIX it begins with `/`, on
 * Windows with a separator or a drive letter. */
const ABSOLUTE_PATH = /^([/\\]|[A-Za-z]:[/\\])/;

/**
 * `path` by a name that no later change of working directory moves, taken at open: a relative
 * path is resolved now, as SQLite resolved it when it opened the file, so that what the store
 * keeps beside its file (the FTS admission lock and its holder record, a backup's second
 * connection, the disk-full probe) stays beside it. Only the folder is resolved: a store reached
 * through a symbolic link keeps its lock beside the link's name, as it always did. An absolute
 * path stays as given, and so does one whose folder cannot be resolved (the open fails on it).
 */
function absoluteName(path: string, host: Host | undefined): string {
  if (!host || isInMemoryPath(path) || ABSOLUTE_PATH.test(path)) return path;
  try {
    const folder = host.realpath(dirnameOf(path));
    return folder === undefined ? path : `${folder}/${basenameOf(path)}`;
  } catch {
    return path;
  }
}

/** What the policy learns from the local file: disk-full checks, the admission lock's holder
 * record, and a read-only connection's wait for a hot rollback journal. A read-only connection
 * that meets one (a DELETE-mode writer died mid-transaction) gets SQLITE_READONLY: the next
 * writable connection rolls the journal back, so that is waited for like a lock. A live writer
 * mid-transaction has a journal beside the store too, but its lock makes SQLite answer BUSY (a
 * journal is hot only while no connection holds a write lock): that is the ordinary busy wait,
 * and its StoreBusyError does not blame a journal left behind. */
function localPolicyEnvironment(path: string, readOnly: boolean, host: Host | undefined): PolicyEnvironment {
  const environment: PolicyEnvironment = {
    diskFull: (error) => diskFullAt(error, path, host),
    describeHolder: () => describeAdmissionHolder(path, host),
    heldHere: () => localHolder(path, host),
  };
  if (readOnly) {
    const hotJournal = (error: unknown) => hasResultCode(error, "READONLY") && hasRollbackJournal(path, host);
    environment.readWait = {
      retryable: hotJournal,
      describeHolder: (error) =>
        hotJournal(error) ? `Cause: ${readOnlyBlockedReason(path, host)}.` : undefined,
    };
  }
  return environment;
}

/** Whether the file the store opened at `path` is still the one there (same device and inode), in
 * words when not; undefined when the file cannot be identified (in memory, or a host without an
 * answer). Checked by its absolute, symlink-free name: SQLite resolved a relative path at open,
 * and a later change of working directory must not read as a moved file. */
function fileMovedCheck(path: string, host: Host): ((reuseMs?: number) => string | undefined) | undefined {
  if (isInMemoryPath(path)) return undefined;
  let file: string | undefined;
  let opened: string | undefined;
  try {
    file = host.realpath(path);
    opened = file === undefined ? undefined : host.fileId(file);
  } catch {
    return undefined;
  }
  if (file === undefined || opened === undefined) return undefined;
  const name = file;
  // When a check last found the file in place (monotonic: a clock set back must not stop them).
  let inPlaceAt = Number.NEGATIVE_INFINITY;
  return (reuseMs = 0) => {
    const at = performance.now();
    if (at - inPlaceAt < reuseMs) return undefined;
    let now: string | undefined;
    try {
      now = host.fileId(name);
    } catch {
      // Cannot look (the folder lost its search permission): SQLite has the last word.
      return undefined;
    }
    if (now === opened) {
      inPlaceAt = at;
      return undefined;
    }
    return now === undefined
      ? `${name} was deleted or renamed after this store opened it`
      : `${name} was replaced by another file after this store opened it`;
  };
}

/** The `local` effects on an embedded store's file. */
function localFileWork(
  conn: SqliteConnection,
  path: string,
  host: Host | undefined,
  journal: JournalPolicyOptions & { sqliteVersion: string },
  action: LocalAction,
): unknown {
  switch (action.name) {
    case "checkJournal":
      return checkJournalSafety(action.mode, journal);
    case "applyJournal":
      return applyJournalPolicy(conn, { ...journal, busyTimeoutMs: STATEMENT_BUSY_TIMEOUT_MS });
    case "checkpoint":
      return passiveCheckpoint(conn);
    case "protectFiles":
      return protectFiles(path, host);
    case "incrementalVacuum":
      conn.exec("PRAGMA auto_vacuum = INCREMENTAL");
      return true;
  }
}
