/**
 * Full rebuilds and their scheduling (spec §5 repair at open, §6 admission and deferred
 * recovery). A rebuild runs only under the cross-process admission lock and fails closed: when
 * the lock cannot be had, the index is detached (stale breadcrumb, no triggers, LIKE search) and
 * the rebuild is left to `retry()`, rate-limited by the recovery backoff.
 *
 * A rebuild never holds the write lock for long. Its structural part is one short transaction:
 * empty both indexes, publish the triggers, forget the stale breadcrumb and seed a backfill
 * window over every existing row (fts/backfill.ts). From that commit on the index is trusted
 * again — new rows are indexed live, search tops up the rows not indexed yet by LIKE — and the
 * heavy part, indexing the old rows, runs as the backfill's paced steps: short transactions that
 * shrink and pause while other connections write (maintenance/paced.ts), full size while nobody
 * does. A rebuild killed between steps leaves a backfill that any later step finishes
 * (`maintenanceTick`, `backfillFts`, the next rebuild); nothing is lost or indexed twice.
 */
import { BACKFILL_MAX_CHUNK_IDS } from "../constants.js";
import { admitted, now, type Op } from "../engine/effects.js";
import { InvalidInputError, StoreFullError } from "../errors.js";
import { policy, read, write } from "../policy/calls.js";
import type { StorePolicy } from "../policy/state.js";
import { healMarkersTx, seed } from "./backfill.js";
import { type BackfillProgress, backfillLoop } from "./backfill-loop.js";
import { FTS_INDEXES, triggerNames } from "./projection.js";
import {
  backfillMarkersBroken,
  isStale,
  loadSnapshot,
  presentIndexes,
  staleOnlyByProjection,
} from "./state.js";
import { readFtsStatus } from "./status.js";
import { detachIndexOp } from "./triggers.js";

/** What a rebuild that cannot be stored did not store. */
const REBUILD = "the FTS rebuild";

const text = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Outcome of a full rebuild (`store.rebuildFts`). */
export interface RebuildResult {
  rebuilt: boolean;
  /** Why not, in words (names the lock holder or the real SQLite code). */
  reason?: string;
  /** Why not, for programs: another process holds the admission ("held"), the admission cannot
   * be taken at all ("environment"), the store is read-only, or SQLite has no FTS5. */
  blocked?: "held" | "environment" | "read-only" | "no-fts5";
}

/** On writable opens: heal broken backfill markers; repair a stale or trigger-less index under
 * a non-blocking admission, else detach and defer. Never throws. */
export function* repairAtOpen(): Op<void> {
  if ((yield* policy()).readOnly) return;
  try {
    let snap = yield* read(loadSnapshot);
    if (presentIndexes(snap).length === 0) return;
    if (backfillMarkersBroken(snap.meta)) {
      yield* write(healMarkersTx);
      snap = yield* read(loadSnapshot);
    }
    if (isStale(snap) && !staleOnlyByProjection(snap)) yield* repair();
  } catch {
    // Whatever failed changed nothing: a stale index stays stale and search stays on LIKE.
  }
}

/** Explicit rebuild: waits up to `timeoutMs` for admission; not admitted → not rebuilt, with the reason. */
export function* rebuild(
  timeoutMs?: number,
  onProgress?: (progress: BackfillProgress) => void,
): Op<RebuildResult> {
  const state = yield* policy();
  if (state.rebuilding) {
    // Waiting would wait for this store itself (its own onProgress calling it, or a second call
    // on an async store while the first runs): the lock would never come free in time.
    throw new InvalidInputError(
      "rebuildFts",
      "a full FTS rebuild is already running in this store (called from its own onProgress, or while an earlier call has not finished); one store runs one rebuild at a time, so this call was refused instead of waiting for the admission lock the store itself holds. Let the running rebuild finish",
    );
  }
  return yield* asTheRebuild(state, () => admittedRebuild(state, timeoutMs, onProgress));
}

function* admittedRebuild(
  state: StorePolicy,
  timeoutMs: number | undefined,
  onProgress: ((progress: BackfillProgress) => void) | undefined,
): Op<RebuildResult> {
  if (state.readOnly) return { rebuilt: false, reason: "the store is read-only", blocked: "read-only" };
  if (presentIndexes(yield* read(loadSnapshot)).length === 0) {
    return {
      rebuilt: false,
      reason: "FTS5 is not available in this SQLite build; search uses LIKE",
      blocked: "no-fts5",
    };
  }
  // Another store of this thread keeps the file's lock across this code (a transaction body, a
  // backup): the rebuild's first write could only fail, after a busy wait. Not admitted, like a
  // held admission lock, without waiting for either.
  const holder = state.environment.heldHere?.();
  if (holder !== undefined) {
    return {
      rebuilt: false,
      reason: `the store's lock is held in this thread, by ${holder}: it is let go only when this thread returns to that code, so the rebuild was not started; call it after that code has finished`,
      blocked: "held",
    };
  }
  const outcome = yield* admitted(timeoutMs ?? state.admissionTimeoutMs, () => pacedRebuild(onProgress));
  if (!outcome.admitted) {
    // The lock file sits beside the store, on its disk: a full one fails like the writes do.
    if (outcome.code === "FULL") throw new StoreFullError(REBUILD, { cause: new Error(outcome.message) });
    return { rebuilt: false, reason: outcome.message, blocked: outcome.reason };
  }
  if (!outcome.value) return { rebuilt: false, reason: DETACHED_MEANWHILE };
  state.backoff.succeeded();
  return { rebuilt: true };
}

/** Run `body` as this store's one rebuild: marked from before the admission wait to the end
 * (set with no effect between the caller's check and the mark). */
function* asTheRebuild<T>(state: StorePolicy, body: () => Op<T>): Op<T> {
  state.rebuilding = true;
  try {
    return yield* body();
  } finally {
    state.rebuilding = false;
  }
}

const DETACHED_MEANWHILE =
  "the index was detached again while it was being rebuilt (FTS corruption met by a write or search); search answers by LIKE until the next rebuild";

/** Deferred recovery: no-op unless stale, writable and due; non-blocking admission; true when it rebuilt. */
export function* retryRecovery(): Op<boolean> {
  const state = yield* policy();
  // A rebuild of this store is running (a tick from its onProgress): it brings the index back.
  if (state.readOnly || state.rebuilding) return false;
  const snap = yield* read(loadSnapshot);
  if (presentIndexes(snap).length === 0 || !isStale(snap) || staleOnlyByProjection(snap)) return false;
  if (!state.backoff.due(yield* now())) return false;
  return yield* repair();
}

/** Rebuild under a non-blocking admission; denied or failed → detach, defer, back off. */
function* repair(): Op<boolean> {
  const state = yield* policy();
  let failure: string;
  try {
    const outcome = yield* asTheRebuild(state, () => admitted(0, () => pacedRebuild()));
    if (outcome.admitted && outcome.value) {
      state.backoff.succeeded();
      return true;
    }
    failure = outcome.admitted ? DETACHED_MEANWHILE : outcome.message;
  } catch (error) {
    failure = `the FTS rebuild failed: ${text(error)}`;
  }
  state.backoff.failed(yield* now());
  yield* write(() => defer(failure));
  return false;
}

/**
 * Detach, re-checked inside the transaction: a sibling may have finished a repair since we
 * looked (then there is nothing to do), or the index may already be detached for the same
 * reason (then rewriting the breadcrumb on every retry would be a pointless write).
 */
function* defer(reason: string): Op<void> {
  const snap = yield* loadSnapshot();
  if (!isStale(snap)) return;
  const anyTrigger = FTS_INDEXES.some((def) => triggerNames(def).some((n) => snap.objects.has(n)));
  const status = yield* readFtsStatus();
  if (!anyTrigger && status.state === "stale" && status.reason === reason) return;
  yield* detachIndexOp(reason);
}

/** The rebuild itself, under the admission (see the module comment); true when the index is
 * whole and trusted at the end. */
function* pacedRebuild(onProgress?: (progress: BackfillProgress) => void): Op<boolean> {
  const state = yield* policy();
  yield* write(seedTx, { what: REBUILD });
  yield* backfillLoop({ chunkIds: BACKFILL_MAX_CHUNK_IDS, memory: state.steps, onProgress });
  return !isStale(yield* read(loadSnapshot));
}

/** The structural part, one transaction: a fresh backfill window over every row. */
function* seedTx(): Op<void> {
  yield* seed(yield* loadSnapshot());
}
