/**
 * The async backfill driver: steps until done, yielding a macrotask between chunks so the
 * host's event loop keeps running, reporting progress, and pacing itself. A step whose
 * `BEGIN IMMEDIATE` had to wait met another writer: chunks halve (down to a floor) and the loop
 * pauses about as long as it held the lock, so a live writer gets at least every other turn.
 * Steps that got the lock at once grow the chunk back and run at full speed.
 */

import type { StepOutcome } from "./backfill.js";
import { BACKFILL_CONTENTION_WAIT_MS, BACKFILL_MAX_PAUSE_MS, BACKFILL_MIN_CHUNK_IDS } from "./constants.js";

/** Progress as reported to `onProgress`: rows of the backfill window. */
export interface BackfillProgress {
  indexed: number;
  total: number;
  done: boolean;
}

/** A step as the loop sees it: what it did and how long it waited for / held the lock. */
export interface TimedStep extends StepOutcome {
  waitedMs: number;
  heldMs: number;
}

/** What the loop needs from the index. */
export interface BackfillDriver {
  step(chunkIds: number): TimedStep;
  /** Rows with ids in `(after, upTo]`. */
  countRows(after: number, upTo: number): number;
}

/** The next chunk size and pause after a step (pure). */
export function pace(
  step: Pick<TimedStep, "waitedMs" | "heldMs">,
  chunk: number,
  maxChunk: number,
  pauseMs: number,
): { chunk: number; pauseMs: number } {
  if (step.waitedMs > BACKFILL_CONTENTION_WAIT_MS) {
    const floor = Math.min(BACKFILL_MIN_CHUNK_IDS, maxChunk);
    return {
      chunk: Math.max(floor, Math.floor(chunk / 2)),
      pauseMs: Math.min(BACKFILL_MAX_PAUSE_MS, Math.max(pauseMs * 2, step.heldMs, 1)),
    };
  }
  return { chunk: Math.min(maxChunk, chunk * 2), pauseMs: 0 };
}

const yieldFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Run steps until none remain, or `signal` aborts (progress already committed stays). */
export async function runBackfill(
  driver: BackfillDriver,
  options: { chunkIds: number; onProgress?: (p: BackfillProgress) => void; signal?: AbortSignal },
): Promise<void> {
  const maxChunk = Math.max(1, Math.floor(options.chunkIds));
  let chunk = maxChunk;
  let pauseMs = 0;
  let indexed = 0;
  let total = 0;
  let knownTo = -1;
  for (;;) {
    options.signal?.throwIfAborted();
    const step = driver.step(chunk);
    if (step.highWater > 0 && total === 0) total = driver.countRows(0, step.highWater);
    // Another process may have advanced progress between our steps: recount once, then add.
    indexed = step.from === knownTo ? indexed + step.rows : driver.countRows(0, step.to);
    knownTo = step.to;
    if (!step.remains) indexed = total;
    options.onProgress?.({ indexed: Math.min(indexed, total), total, done: !step.remains });
    if (!step.remains) return;
    ({ chunk, pauseMs } = pace(step, chunk, maxChunk, pauseMs));
    // Always a macrotask, never a microtask: timers and I/O callbacks must get their turn.
    await yieldFor(pauseMs);
  }
}
