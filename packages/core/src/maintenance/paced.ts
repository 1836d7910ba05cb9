/**
 * Paced maintenance: a long job (the FTS backfill, vacuum) runs as many short write
 * transactions, yielding a macrotask between them so the host's event loop keeps running, and
 * pacing itself around other writers. They show up two ways: a step's `BEGIN IMMEDIATE` had to
 * wait, or another connection committed since the last step (`PRAGMA data_version` moved). Then
 * the next chunk is sized to hold the write lock for about PACE_TARGET_HOLD_MS, and the loop
 * pauses about twice as long as it held it, so a live writer waits for at most about one short
 * chunk. With no one else writing, chunks grow back until a step holds the lock ~1 s (each
 * commit's fsync and checkpoint are then a small share of the job) and the job runs at full
 * speed (a short pause, a sixteenth of the step, still leaves a gap a writer that has just
 * started waiting can land in). The loop is an
 * operation: the async runner (and the sync store's promise-returning jobs) passes its pauses on
 * a timer, so the host's event loop runs between steps; the sync runner sleeps through them
 * (`rebuildFts` on the sync store blocks its caller anyway, but other processes write between
 * its steps).
 */
import {
  PACE_CONTENTION_WAIT_MS,
  PACE_MAX_PAUSE_MS,
  PACE_MIN_PAUSE_MS,
  PACE_QUIET_MAX_HOLD_MS,
  PACE_QUIET_PAUSE_SHARE,
  PACE_TARGET_HOLD_MS,
} from "../constants.js";
import { get, now, type Op, pause } from "../engine/effects.js";
import { write } from "../policy/calls.js";
import type { StepMemory } from "../policy/state.js";

/** How a step's transaction went: how long it waited for the lock and held it, and whether
 * another connection committed since the previous step. */
export interface StepTiming {
  waitedMs: number;
  heldMs: number;
  othersWrote: boolean;
}

/** `body` in its own write transaction, timed (see StepTiming). */
export function* timedWrite<T>(
  body: () => Op<T>,
  memory: StepMemory,
): Op<{ outcome: T; timing: StepTiming }> {
  const started = yield* now();
  const entered = { at: started, othersWrote: false };
  const outcome = yield* write(() => versioned(body, memory, entered));
  const heldMs = (yield* now()) - entered.at;
  return { outcome, timing: { waitedMs: entered.at - started, heldMs, othersWrote: entered.othersWrote } };
}

function* versioned<T>(body: () => Op<T>, memory: StepMemory, entered: { at: number; othersWrote: boolean }) {
  entered.at = yield* now();
  // data_version moves only for other connections' commits: did anyone write since our last step?
  const version = Number(Object.values((yield* get("PRAGMA data_version")) ?? {})[0]);
  entered.othersWrote = memory.dataVersion !== undefined && version !== memory.dataVersion;
  memory.dataVersion = version;
  return yield* body();
}

function contended(step: StepTiming): boolean {
  return step.othersWrote || step.waitedMs > PACE_CONTENTION_WAIT_MS;
}

/** The next chunk size and pause after a step (pure). `quiet` counts the steps in a row, this
 * one included, that met no other writer; `minChunk` is the smallest useful chunk of the job. */
export function pace(
  step: StepTiming,
  chunk: number,
  maxChunk: number,
  quiet: number,
  minChunk: number,
): { chunk: number; pauseMs: number } {
  if (contended(step)) {
    const floor = Math.min(minChunk, maxChunk);
    // Scale the chunk towards the target hold time; never grow it while others write.
    const scaled = Math.floor((chunk * PACE_TARGET_HOLD_MS) / Math.max(step.heldMs, 1));
    return {
      chunk: Math.max(floor, Math.min(chunk, scaled)),
      pauseMs: Math.min(PACE_MAX_PAUSE_MS, Math.max(2 * step.heldMs, PACE_MIN_PAUSE_MS)),
    };
  }
  const pauseMs = Math.min(PACE_MIN_PAUSE_MS, Math.max(1, Math.round(step.heldMs * PACE_QUIET_PAUSE_SHARE)));
  // Alone, a step grows until it holds the lock about PACE_QUIET_MAX_HOLD_MS; one that took
  // longer (a slow disk, a loaded machine) is scaled back to it.
  if (step.heldMs > PACE_QUIET_MAX_HOLD_MS) {
    const scaled = Math.floor((chunk * PACE_QUIET_MAX_HOLD_MS) / step.heldMs);
    return { chunk: Math.max(Math.min(minChunk, maxChunk), scaled), pauseMs };
  }
  const grow = quiet >= 2 && 2 * step.heldMs <= PACE_QUIET_MAX_HOLD_MS;
  return { chunk: grow ? Math.min(maxChunk, chunk * 2) : chunk, pauseMs };
}

/** A paced job: its step, and what to do after each (report progress; say whether work remains). */
export interface PacedJob<S extends StepTiming> {
  step(chunk: number): Op<S>;
  /** After each step: true while work remains. */
  after(step: S): Op<boolean>;
  /** The first chunk: small, so a job that starts next to live writers never holds the lock for
   * a whole full-size chunk; chunks double only after two quiet steps in a row. */
  startChunk: number;
  minChunk: number;
  maxChunk: number;
  /** The shortest pause between two steps, even when no one else seems to write. A writer that
   * waits for the lock is invisible until it gets it (it commits nothing, and the job's own BEGIN
   * does not wait): a job of many short steps with gaps of a millisecond or two would keep it out
   * for good. Default: none (the pause `pace` chose). */
  minPauseMs?: number;
  signal?: AbortSignal;
}

/** Run steps until none remain, or `signal` aborts (what the steps committed stays). */
export function* paced<S extends StepTiming>(job: PacedJob<S>): Op<void> {
  const maxChunk = Math.max(1, Math.floor(job.maxChunk));
  let chunk = Math.min(maxChunk, job.startChunk);
  let quiet = 0;
  for (;;) {
    job.signal?.throwIfAborted();
    const step = yield* job.step(chunk);
    if (!(yield* job.after(step))) return;
    quiet = contended(step) ? 0 : quiet + 1;
    const next = pace(step, chunk, maxChunk, quiet, job.minChunk);
    chunk = next.chunk;
    yield* pause(Math.max(next.pauseMs, job.minPauseMs ?? 0));
  }
}
