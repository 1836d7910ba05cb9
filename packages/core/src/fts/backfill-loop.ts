/**
 * The backfill as a paced job (maintenance/paced.ts): steps until the window is indexed,
 * counting rows for progress. Another process may advance the backfill between our steps; the
 * count is then taken again.
 */
import { runPaced, type StepTiming } from "../maintenance/paced.js";
import type { StepOutcome } from "./backfill.js";
import { BACKFILL_MIN_CHUNK_IDS, BACKFILL_START_CHUNK_IDS } from "./constants.js";

/** Progress as reported to `onProgress`: rows of the backfill window. */
export interface BackfillProgress {
  indexed: number;
  total: number;
  done: boolean;
}

/** A step as the loop sees it: what it did, and how its transaction went. */
export interface TimedStep extends StepOutcome, StepTiming {}

/** What the loop needs from the index. */
export interface BackfillDriver {
  /** Each call runs `timedBackfillStep`/`countRows` on a runner: a value on the sync one, a
   * promise on the async one (the loop awaits either). */
  step(chunkIds: number): TimedStep | Promise<TimedStep>;
  /** Rows with ids in `(after, upTo]`. */
  countRows(after: number, upTo: number): number | Promise<number>;
}

/** Run steps until none remain, or `signal` aborts (progress already committed stays). */
export async function runBackfill(
  driver: BackfillDriver,
  options: { chunkIds: number; onProgress?: (p: BackfillProgress) => void; signal?: AbortSignal },
): Promise<void> {
  let indexed = 0;
  let total = 0;
  let knownTo = -1;
  await runPaced({
    step: (chunk) => driver.step(chunk),
    async after(step) {
      if (step.highWater > 0 && total === 0) total = await driver.countRows(0, step.highWater);
      // Another process may have advanced progress between our steps: recount once, then add.
      indexed = step.from === knownTo ? indexed + step.rows : await driver.countRows(0, step.to);
      knownTo = step.to;
      if (!step.remains) indexed = total;
      options.onProgress?.({ indexed: Math.min(indexed, total), total, done: !step.remains });
      return step.remains;
    },
    startChunk: BACKFILL_START_CHUNK_IDS,
    minChunk: BACKFILL_MIN_CHUNK_IDS,
    maxChunk: options.chunkIds,
    signal: options.signal,
  });
}
