/**
 * The backfill as a paced job (maintenance/paced.ts): steps until the window is indexed,
 * counting rows for progress. Another process may advance the backfill between our steps; the
 * count is then taken again. `backfillFts` runs it over a backfill that is pending (or seeds
 * one), `rebuildFts` over the one its structural transaction just seeded.
 */
import type { Op } from "../engine/effects.js";
import { paced } from "../maintenance/paced.js";
import { read } from "../policy/calls.js";
import type { StepMemory } from "../policy/state.js";
import { countRows, type TimedStep, timedBackfillStep } from "./backfill.js";
import { BACKFILL_MIN_CHUNK_IDS, BACKFILL_START_CHUNK_IDS } from "./constants.js";

/** Progress as reported to `onProgress`: rows of the backfill window. */
export interface BackfillProgress {
  indexed: number;
  total: number;
  done: boolean;
}

export interface BackfillLoopOptions {
  /** The largest chunk, in ids. */
  chunkIds: number;
  /** The store's step memory (its data_version after the last step). */
  memory: StepMemory;
  onProgress?: (p: BackfillProgress) => void;
  signal?: AbortSignal;
}

/** Run steps until none remain, or `signal` aborts (progress already committed stays). */
export function* backfillLoop(options: BackfillLoopOptions): Op<void> {
  const tally = { indexed: 0, total: 0, knownTo: -1 };
  yield* paced<TimedStep>({
    step: (chunk) => timedBackfillStep(chunk, options.memory),
    after: (step) => report(step, tally, options.onProgress),
    startChunk: BACKFILL_START_CHUNK_IDS,
    minChunk: BACKFILL_MIN_CHUNK_IDS,
    maxChunk: options.chunkIds,
    signal: options.signal,
  });
}

function* report(
  step: TimedStep,
  tally: { indexed: number; total: number; knownTo: number },
  onProgress: ((p: BackfillProgress) => void) | undefined,
): Op<boolean> {
  if (step.highWater > 0 && tally.total === 0) tally.total = yield* read(() => countRows(0, step.highWater));
  // Another process may have advanced progress between our steps: recount once, then add.
  tally.indexed =
    step.from === tally.knownTo ? tally.indexed + step.rows : yield* read(() => countRows(0, step.to));
  tally.knownTo = step.to;
  if (!step.remains) tally.indexed = tally.total;
  onProgress?.({ indexed: Math.min(tally.indexed, tally.total), total: tally.total, done: !step.remains });
  return step.remains;
}
