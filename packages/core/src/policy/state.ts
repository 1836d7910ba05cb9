/**
 * The Store's policy, shared by both runners: the state one store keeps between calls (closed,
 * sticky corruption, fail-open's re-entry guard, checkpoint cadence, the recovery backoff) and
 * the rules applied to every call — guards, error classification, read patience, and the write
 * policy (patience, fail-open retry, classification, checkpoint cadence) as one operation. The
 * environment supplies the few facts that need a local file (disk-full checks, the admission
 * holder's record, a hot rollback journal); an async engine leaves them out.
 */
import { CHECKPOINT_EVERY_WRITES, FILE_RECHECK_AFTER_MS } from "../constants.js";
import { type Effect, local, type Op, POLICY, type WriteOptions } from "../engine/effects.js";
import {
  hasResultCode,
  InvalidInputError,
  isDiskFull,
  StoreClosedError,
  StoreCorruptError,
  StoreFullError,
  StoreReadOnlyError,
} from "../errors.js";
import { failOpen } from "../fts/corruption.js";
import type { PatienceOptions } from "../locks/patience.js";
import { RecoveryBackoff, type RecoveryBackoffOptions } from "../locks/recovery-backoff.js";
import type { StepMemory } from "../maintenance/paced.js";

/** What the environment knows that the operations cannot ask SQLite. */
export interface PolicyEnvironment {
  /** Whether `error` means the disk holding the store is full (default: its result code). */
  diskFull?(error: unknown): boolean;
  /** Who holds the FTS admission, for StoreBusyError. */
  describeHolder?(): string | undefined;
  /** What of this thread holds a lock on the store's file (locks/local-holds.ts): a wait for it
   * gives up at once. */
  heldHere?(): string | undefined;
  /** How the store's file changed since the open (deleted, renamed or replaced), or undefined
   * while it is the file the store opened — or while a check less than `reuseMs` ago found it
   * so (default 0: always looks). Asked before each write: SQLite would go on writing into the
   * file the store holds open, which no one can open again (WAL mode), or refuse with a bare
   * "readonly database" (rollback journal). */
  fileMoved?(reuseMs?: number): string | undefined;
  /** Extra read patience (a read-only connection waiting out a hot rollback journal). */
  readWait?: Pick<PatienceOptions, "retryable" | "describeHolder">;
}

/** The store's policy state, as the runner answers the `policy` effect. */
export function* policy(): Op<StorePolicy> {
  return (yield POLICY) as StorePolicy;
}

/** One store's policy state and settings. */
export interface StorePolicy {
  readonly readOnly: boolean;
  readonly patience: { readonly openMs: number; readonly writeMs: number; readonly appendMs: number };
  readonly admissionTimeoutMs: number;
  readonly repairFtsOnOpen: boolean;
  readonly backoff: RecoveryBackoff;
  /** The backfill step's memory of the last step (fts/backfill.ts). */
  readonly steps: StepMemory;
  readonly environment: PolicyEnvironment;
  closed: boolean;
  /** Set by the first structural corruption: every later write fails with it. */
  corrupt: StoreCorruptError | undefined;
  /** Fail-open is running (its own detach must not re-enter it). */
  failingOpen: boolean;
  writesSinceCheckpoint: number;
  /** This store committed a write (close checkpoints only then). */
  wrote: boolean;
  /** A full FTS rebuild of this store holds its admission or is waiting for it (fts/recovery.ts):
   * another one from the same store is refused at once, since it would wait for itself. */
  rebuilding: boolean;
  /** The store was found without META_TEXT_WITHOUT_NUL: it may hold TEXT with a NUL, and reads
   * on a binding that stops at one go through the guard at once (store/text-reads.ts). */
  textMayHoldNul: boolean;
}

export function createPolicy(
  settings: {
    readOnly: boolean;
    patience: StorePolicy["patience"];
    admissionTimeoutMs: number;
    repairFtsOnOpen: boolean;
    recoveryBackoff?: RecoveryBackoffOptions;
  },
  environment: PolicyEnvironment,
): StorePolicy {
  return {
    readOnly: settings.readOnly,
    patience: settings.patience,
    admissionTimeoutMs: settings.admissionTimeoutMs,
    repairFtsOnOpen: settings.repairFtsOnOpen,
    backoff: new RecoveryBackoff(settings.recoveryBackoff),
    steps: {},
    environment,
    closed: false,
    corrupt: undefined,
    failingOpen: false,
    writesSinceCheckpoint: 0,
    wrote: false,
    rebuilding: false,
    textMayHoldNul: false,
  };
}

/** The `guard` effect's rule: closed → StoreClosedError; `writable` on a read-only or corrupt
 * store → its error; `outside` inside a transaction → InvalidInputError. */
export function checkGuard(
  state: StorePolicy,
  level: "open" | "writable",
  insideTransaction: boolean,
  outside?: string,
): void {
  if (state.closed) throw new StoreClosedError();
  if (level === "writable") {
    if (state.readOnly) throw new StoreReadOnlyError("it was opened with { readOnly: true }");
    if (state.corrupt) throw state.corrupt;
  }
  if (outside !== undefined && insideTransaction) {
    throw new InvalidInputError(
      "transaction",
      `${outside}() cannot run inside store.transaction(): it runs on its own; call it after the transaction returns`,
    );
  }
}

/** A write refused because the store's file is no longer the one it opened. */
function movedFileError(moved: string, cause?: unknown): StoreReadOnlyError {
  return new StoreReadOnlyError(
    `${moved}, so a write would go to a file no one can open again; close this store and open the path again`,
    { cause },
  );
}

/** SQLite's corruption answers: structural, FTS-scoped, or FTS garbage decoded as a huge size. */
export function isCorruption(error: unknown): boolean {
  return hasResultCode(error, "CORRUPT", "CORRUPT_VTAB", "NOTADB", "NOMEM");
}

/** READONLY → StoreReadOnlyError; a full disk → StoreFullError naming `what` was not stored;
 * structural corruption → sticky StoreCorruptError; a value too big for the engine →
 * InvalidInputError (`tooBigInput`). */
export function classifyFailure(state: StorePolicy, error: unknown, what = "the operation"): unknown {
  const full = state.environment.diskFull ?? isDiskFull;
  if (full(error)) return new StoreFullError(what, { cause: error });
  if (hasResultCode(error, "TOOBIG")) return tooBigInput(error, what);
  if (hasResultCode(error, "READONLY")) {
    const moved = state.environment.fileMoved?.();
    if (moved !== undefined) return movedFileError(moved, error);
    return new StoreReadOnlyError(`SQLite refused the write (${error.message})`, { cause: error });
  }
  if (hasResultCode(error, "CORRUPT", "NOTADB")) {
    state.corrupt ??= new StoreCorruptError(error.message, { cause: error });
    return state.corrupt;
  }
  return error;
}

/**
 * SQLITE_TOOBIG as the caller's bad input: a string or blob longer than the engine takes. The
 * store's own limits (16 Mi characters) sit far below SQLite's default, but an engine may set a
 * lower one — a libSQL server refuses values from about 5 M characters. The same input fails
 * the same way every time, so it is refused, never retried; other errors pass through. Writes
 * inside a transaction use it too (the runners' nested writes), so a body sees the same error.
 */
export function tooBigInput(error: unknown, what = "the operation"): unknown {
  if (!hasResultCode(error, "TOOBIG")) return error;
  return new InvalidInputError(
    "value",
    `${what} holds a string or blob longer than the database engine accepts in one value (${error.message.replace(/\.$/, "")}); split or shorten it`,
  );
}

/** Patience for reads (with the environment's extra waits). */
export function readPatience(
  state: StorePolicy,
  budgetMs: number,
  jitter: "open" | "write",
): Omit<PatienceOptions, "now" | "sleep"> {
  return { budgetMs, jitter, heldHere: state.environment.heldHere, ...state.environment.readWait };
}

/**
 * The write policy, for a write outside any transaction: one write transaction with write
 * patience (the whole body again on BUSY/LOCKED); FTS-scoped corruption detaches the index and
 * runs the body once more; a failure is classified; every commit counts toward the checkpoint
 * cadence (an environment without a local file has no checkpoint to run).
 */
export function* guardedWrite<T>(body: () => Op<T>, options?: WriteOptions): Op<T> {
  // Effects yielded directly rather than through their helpers: this runs on every write, and
  // each helper is one more generator object.
  const state = (yield POLICY) as StorePolicy;
  const attempt: Effect = {
    kind: "transaction",
    mode: "write",
    body,
    patience: {
      budgetMs: options?.patienceMs ?? state.patience.writeMs,
      jitter: "write",
      describeHolder: state.environment.describeHolder,
    },
  };
  const moved = state.environment.fileMoved?.(FILE_RECHECK_AFTER_MS);
  if (moved !== undefined) throw movedFileError(moved);
  let failedOpen = false;
  for (;;) {
    let result: T;
    try {
      result = (yield attempt) as T;
    } catch (error) {
      if (!failedOpen && (yield* failOpen(error))) {
        failedOpen = true;
        continue;
      }
      throw classifyFailure(state, error, options?.what);
    }
    // The checkpoint cadence. The write is committed: the checkpoint's failure (a full disk
    // cannot grow the database file) must not be reported as the write's, which the caller would
    // retry. The WAL keeps every commit; maintenanceTick and close checkpoint again.
    state.wrote = true;
    if (++state.writesSinceCheckpoint >= CHECKPOINT_EVERY_WRITES) {
      state.writesSinceCheckpoint = 0;
      try {
        yield* local({ name: "checkpoint" });
      } catch {
        // see above
      }
    }
    return result;
  }
}
