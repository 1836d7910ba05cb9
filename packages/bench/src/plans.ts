/**
 * How much to measure. `smoke` (npm test) does everything once on a tiny corpus; `full` is
 * sized so the default run (10k + 100k on four targets) stays under ~20 minutes on 2 cores.
 */
import type { Plan } from "./suites/context.js";

export const PLANS: Record<"smoke" | "full", (messages: number) => Plan> = {
  smoke: () => ({
    benchTimeMs: 0,
    benchIterations: 1,
    rounds: 1,
    spawns: 1,
    singles: 3,
    batches: 1,
    batchSize: 10,
    ftsRuns: 1,
    writerIdleMs: 150,
    writerPauseMs: 2,
    writerMinJobMs: 0,
  }),
  full: (messages) => ({
    benchTimeMs: 500,
    // At 1M a common-word search takes about a second: 50 iterations per task would take minutes.
    benchIterations: messages <= 200_000 ? 50 : 10,
    rounds: 3,
    spawns: 20,
    singles: 300,
    batches: 60,
    batchSize: 50,
    // Large stores take tens of seconds per job; small ones are noisy and cheap to repeat.
    ftsRuns: messages <= 20_000 ? 5 : messages <= 200_000 ? 2 : 1,
    writerIdleMs: 1000,
    writerPauseMs: 5,
    writerMinJobMs: 5000,
  }),
};
