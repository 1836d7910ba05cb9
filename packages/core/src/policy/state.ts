/**
 * The Store's policy state and rules: the state one store keeps between calls (closed, sticky
 * corruption, fail-open's re-entry guard, checkpoint cadence, the recovery backoff) and the rules
 * applied to every call — guards, error classification, read patience. The operations that apply
 * them (`write`, `read`, `snapshot`, `guard`, `patient`) are in policy/calls.ts. The
 * environment supplies the few facts that need a local file (disk-full checks, the admission
 * holder's record, a hot rollback journal); an async engine leaves them out.
 */
import type { Op } from "../engine/effects.js";
import {
  hasResultCode,
  InvalidInputError,
  isDiskFull,
  StoreClosedError,
  StoreCorruptError,
  StoreFullError,
  StoreReadOnlyError,
} from "../errors.js";
import { type PatienceOptions, withPatience } from "../locks/patience.js";
import { RecoveryBackoff, type RecoveryBackoffOptions } from "../locks/recovery-backoff.js";

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

/** What a job remembers between its steps (maintenance/paced.ts): the store's data_version after
 * the last one. */
export interface StepMemory {
  dataVersion?: number;
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
  /** Whether something around this store's operations may take a groupable write (the async
   * store's group commit): only then does `write` offer it. Fixed at creation, so the sync store,
   * whose calls are serial anyway, never pays the offer's step on an append. */
  readonly groupsWrites: boolean;
  /** Fail-open (fts/corruption.ts), given by the store: asked by a write that failed whether the
   * FTS index alone was at fault and is now detached, so the write may run once more. */
  readonly failOpen: (error: unknown) => Op<boolean>;
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
    failOpen: StorePolicy["failOpen"];
    groupsWrites: boolean;
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
    groupsWrites: settings.groupsWrites,
    failOpen: settings.failOpen,
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
export function movedFileError(moved: string, cause?: unknown): StoreReadOnlyError {
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

/** A read of a sync store's connection made outside the operations (backup's reads): the read
 * patience and classification that `read` gives an operation, for a plain function. */
export function readSync<T>(state: StorePolicy, fn: () => T): T {
  checkGuard(state, "open", false);
  try {
    return withPatience(fn, readPatience(state, state.patience.writeMs, "write"));
  } catch (error) {
    throw classifyFailure(state, error);
  }
}
