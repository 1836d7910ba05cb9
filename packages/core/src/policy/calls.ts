/**
 * The Store's policy as operations: what every read and write of the store goes through — the
 * guards, lock patience, error classification, fail-open and the checkpoint cadence — built from
 * the engine's I/O primitives (a transaction, the clock, a pause, the store's state, the depth),
 * so the sync and the async runner run the very same generator code and know nothing of it.
 *
 * Each call is one generator with few steps: these run on every read and write, so they yield
 * effect objects directly rather than through the engine's helpers (each helper is one more
 * generator object), and `read`/`snapshot`/`write` return their generator instead of wrapping
 * it in another.
 */
import { CHECKPOINT_EVERY_WRITES, FILE_RECHECK_AFTER_MS } from "../constants.js";
import { DEPTH, type Effect, local, NOW, type Op, STATE } from "../engine/effects.js";
import { StoreClosedError } from "../errors.js";
import { type PatienceOptions, patienceClock } from "../locks/patience.js";
import {
  checkGuard,
  classifyFailure,
  isCorruption,
  movedFileError,
  readPatience,
  type StorePolicy,
  tooBigInput,
} from "./state.js";

/** Options of a `write` (or `snapshot`) body. */
export interface WriteOptions {
  /** Patience budget in ms for BUSY/LOCKED (default: the write patience). */
  patienceMs?: number;
  /** What the write stores, for the error when it cannot be (e.g. `the append of 3 messages to
   * session "s1"`). */
  what?: string;
  /** Reads only: the operation handles SQLITE_CORRUPT itself (search falls back to LIKE and
   * detaches a corrupt index), so the read passes it through instead of classifying it as
   * structural corruption, which would make the store read-only for good. */
  ownsCorruption?: boolean;
  /** An append's write, which the async store may commit together with other calls' (its
   * group-commit.ts): how many rows it inserts and how many characters of values they hold. */
  groupable?: { rows: number; bytes: number };
}

/** What a `write` with `groupable` offers (the `offer` effect): its body and options. */
export interface WriteOffer {
  readonly body: () => Op<unknown>;
  readonly options: WriteOptions;
}

/** Patience as the operations give it (the clock and the sleep are effects). */
export type Patience = Omit<PatienceOptions, "now" | "sleep">;

/** The store's policy state (the `state` effect, typed). */
export function* policy(): Op<StorePolicy> {
  return (yield STATE) as StorePolicy;
}

/** Refuse the call unless the store is open (`writable`: and writable, not corrupt); with
 * `outside` (the method's name), also inside `store.transaction` (the method runs transactions
 * of its own). */
export function* guard(level: "open" | "writable", outside?: string): Op<void> {
  const state = (yield STATE) as StorePolicy;
  const inside = outside !== undefined && ((yield DEPTH) as number) > 0;
  checkGuard(state, level, inside, outside);
}

/** Run `body` (no transaction of its own) again on BUSY/LOCKED until the budget is spent. */
export function* patient<T>(body: () => Op<T>, patience: Patience): Op<T> {
  return yield* patiently((yield STATE) as StorePolicy, body, patience);
}

/** Run `body` as a read with the store's read patience and classification. */
export function read<T>(body: () => Op<T>): Op<T> {
  return guardedRead<T>(body);
}

/** Run `body` in one read transaction: every statement sees the same snapshot (inside a
 * transaction, the open one's). */
export function snapshot<T>(body: () => Op<T>, options?: WriteOptions): Op<T> {
  return guardedRead<T>({ kind: "transaction", mode: "read", body }, options);
}

/**
 * Run `body` as one write transaction. Outside any transaction: write patience (the whole body
 * again on BUSY/LOCKED, so the body is a factory: each attempt gets a fresh generator);
 * FTS-scoped corruption detaches the index and runs the body once more; a failure is
 * classified; every commit counts toward the checkpoint cadence (an environment without a local
 * file has no checkpoint to run). Inside a transaction it joins it as a savepoint: the outer
 * write's patience, retry and fail-open cover it, and its commit is the outer one's. A
 * `groupable` write on a store whose policy `groupsWrites` is offered first (the `offer` effect).
 */
export function write<T>(body: () => Op<T>, options?: WriteOptions): Op<T> {
  return guardedWrite(body, options, "writable");
}

/**
 * `write` for a call already admitted while the store was open — a group commit's member, which
 * `close()` waits for: the same policy, refused only on a store found corrupt (or read-only)
 * meanwhile, not for the close that came after it was admitted.
 */
export function admittedWrite<T>(body: () => Op<T>, options?: WriteOptions): Op<T> {
  return guardedWrite(body, options, "admitted");
}

function* guardedWrite<T>(
  body: () => Op<T>,
  options: WriteOptions | undefined,
  level: "writable" | "admitted",
): Op<T> {
  const state = (yield STATE) as StorePolicy;
  if (level === "writable") {
    checkGuard(state, "writable", false);
    if (state.groupsWrites && options?.groupable !== undefined) {
      // Offered first: a group commit answers with the write's result, having run it with
      // others'; not taken (inside a transaction), it runs as any write.
      const offer: WriteOffer = { body, options };
      const taken = (yield { kind: "offer", offer }) as { value: T } | undefined;
      if (taken !== undefined) return taken.value;
    }
  } else if (state.corrupt) throw state.corrupt;
  const attempt: Effect = { kind: "transaction", mode: "write", body };
  if (((yield DEPTH) as number) > 0) {
    try {
      return (yield attempt) as T;
    } catch (error) {
      throw tooBigInput(error, options?.what);
    }
  }
  const moved = state.environment.fileMoved?.(FILE_RECHECK_AFTER_MS);
  if (moved !== undefined) throw movedFileError(moved);
  const patience: Patience = {
    budgetMs: options?.patienceMs ?? state.patience.writeMs,
    jitter: "write",
    describeHolder: state.environment.describeHolder,
  };
  let failedOpen = false;
  for (;;) {
    let result: T;
    try {
      result = yield* patiently<T>(state, attempt, patience);
    } catch (error) {
      if (!failedOpen && (yield* state.failOpen(error))) {
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

function* guardedRead<T>(attempt: Effect | (() => Op<T>), options?: WriteOptions): Op<T> {
  const state = (yield STATE) as StorePolicy;
  checkGuard(state, "open", false);
  try {
    return yield* patiently<T>(state, attempt, readPatience(state, state.patience.writeMs, "write"));
  } catch (error) {
    if (options?.ownsCorruption && isCorruption(error)) throw error;
    throw classifyFailure(state, error);
  }
}

/**
 * `attempt` (an effect, or a body run in place), again on BUSY/LOCKED with jittered pauses
 * until the budget is spent (locks/patience.ts's waits and errors). The budget starts before the
 * first attempt. A lock this thread holds itself (the environment's `heldHere`) fails at once.
 * Not retried once the store is closing: its `close` waits for the calls in flight, and must not
 * wait out a whole patience budget.
 */
function* patiently<T>(state: StorePolicy, attempt: Effect | (() => Op<T>), patience: Patience): Op<T> {
  const started = (yield NOW) as number;
  let wait: ((error: unknown, at: number) => number) | undefined;
  for (;;) {
    try {
      return typeof attempt === "function" ? yield* attempt() : ((yield attempt) as T);
    } catch (error) {
      wait ??= patienceClock({ heldHere: state.environment.heldHere, ...patience }, started);
      const ms = wait(error, (yield NOW) as number);
      yield { kind: "pause", ms };
      if (state.closed) throw new StoreClosedError();
    }
  }
}
