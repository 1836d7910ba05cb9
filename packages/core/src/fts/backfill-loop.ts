/**
 * The async backfill driver: steps until done, yielding a macrotask between chunks so the
 * host's event loop keeps running, reporting progress, and pacing itself. Other writers show
 * up two ways: a step's `BEGIN IMMEDIATE` had to wait, or another connection committed since the
 * last step (`PRAGMA data_version` moved). Then the next chunk is sized to hold the write lock
 * for about BACKFILL_TARGET_HOLD_MS, and the loop pauses about as long as it held it, so a live
 * writer waits for at most about one short chunk. With no one else writing, chunks grow back
 * to the full size and the loop runs at full speed.
 */

import type { StepOutcome } from "./backfill.js";
import {
  BACKFILL_CONTENTION_WAIT_MS,
  BACKFILL_MAX_PAUSE_MS,
  BACKFILL_MIN_CHUNK_IDS,
  BACKFILL_MIN_PAUSE_MS,
  BACKFILL_START_CHUNK_IDS,
  BACKFILL_TARGET_HOLD_MS,
} from "./constants.js";

/** Progress as reported to `onProgress`: rows of the backfill window. */
export interface BackfillProgress {
  indexed: number;
  total: number;
  done: boolean;
}

/** A step as the loop sees it: what it did, how long it waited for / held the lock, and whether
 * another connection committed since the previous step. */
export interface TimedStep extends StepOutcome {
  waitedMs: number;
  heldMs: number;
  othersWrote: boolean;
}

/** What the loop needs from the index. */
export interface BackfillDriver {
  /** Each call runs `timedBackfillStep`/`countRows` on a runner: a value on the sync one, a
   * promise on the async one (the loop awaits either). */
  step(chunkIds: number): TimedStep | Promise<TimedStep>;
  /** Rows with ids in `(after, upTo]`. */
  countRows(after: number, upTo: number): number | Promise<number>;
}

/** The next chunk size and pause after a step (pure). `quiet` counts the steps in a row, this
 * one included, that met no other writer. */
export function pace(
  step: Pick<TimedStep, "waitedMs" | "heldMs" | "othersWrote">,
  chunk: number,
  maxChunk: number,
  quiet: number,
): { chunk: number; pauseMs: number } {
  if (step.waitedMs > BACKFILL_CONTENTION_WAIT_MS || step.othersWrote) {
    const floor = Math.min(BACKFILL_MIN_CHUNK_IDS, maxChunk);
    // Scale the chunk towards the target hold time; never grow it while others write.
    const scaled = Math.floor((chunk * BACKFILL_TARGET_HOLD_MS) / Math.max(step.heldMs, 1));
    return {
      chunk: Math.max(floor, Math.min(chunk, scaled)),
      pauseMs: Math.min(BACKFILL_MAX_PAUSE_MS, Math.max(2 * step.heldMs, BACKFILL_MIN_PAUSE_MS)),
    };
  }
  return { chunk: quiet >= 2 ? Math.min(maxChunk, chunk * 2) : chunk, pauseMs: 0 };
}

const yieldFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Run steps until none remain, or `signal` aborts (progress already committed stays). */
export async function runBackfill(
  driver: BackfillDriver,
  options: { chunkIds: number; onProgress?: (p: BackfillProgress) => void; signal?: AbortSignal },
): Promise<void> {
  const maxChunk = Math.max(1, Math.floor(options.chunkIds));
  let chunk = Math.min(maxChunk, BACKFILL_START_CHUNK_IDS);
  let quiet = 0;
  let indexed = 0;
  let total = 0;
  let knownTo = -1;
  for (;;) {
    options.signal?.throwIfAborted();
    const step = await driver.step(chunk);
    if (step.highWater > 0 && total === 0) total = await driver.countRows(0, step.highWater);
    // Another process may have advanced progress between our steps: recount once, then add.
    indexed = step.from === knownTo ? indexed + step.rows : await driver.countRows(0, step.to);
    knownTo = step.to;
    if (!step.remains) indexed = total;
    options.onProgress?.({ indexed: Math.min(indexed, total), total, done: !step.remains });
    if (!step.remains) return;
    quiet = step.othersWrote || step.waitedMs > BACKFILL_CONTENTION_WAIT_MS ? 0 : quiet + 1;
    const next = pace(step, chunk, maxChunk, quiet);
    chunk = next.chunk;
    // Always a macrotask, never a microtask: timers and I/O callbacks must get their turn.
    await yieldFor(next.pauseMs);
  }
}
