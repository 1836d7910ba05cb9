/**
 * How much to measure. `smoke` (npm test) does everything once on a tiny corpus; `full` is
 * sized so the default run (10k, 100k and 1M messages) fits in about an hour on 2 cores.
 */
import type { Plan } from "./suites/context.js";

/** Above this many messages a store is "large": whole-store jobs take minutes per run. */
export const LARGE_STORE = 200_000;

/**
 * Suites that repeat a job over the whole store (FTS rebuild and backfill, with and without a
 * writer; backups; prune, vacuum and import, on a copy of their own; the hand-written peer filled
 * with the whole corpus). On a large store they run
 * on one target only — the first file target, the
 * one that builds the corpus — since each takes minutes there and the question they answer
 * (does a writer stall, does memory grow) is the store's, not the binding's. Every other suite
 * (cold open, resume, search, append) runs on every target at every size.
 */
// Passed to the runner as one comma-separated --skip list: a name must not contain a comma.
export const WHOLE_STORE_SUITES = [
  "fts throughput",
  "writer under load",
  "backup",
  "prune and vacuum then import",
  // A second store of the whole corpus, filled row by row (3.5 GB more at 1M).
  "peers",
] as const;

/** Cursor pages of the every-hit walk on a large store (at 1M the whole walk of a common word
 * is 320 pages and ~7 min per round): the first this many, against one raw query for as many hits. */
const LARGE_WALK_PAGES = 10;

/** The writer suite's rebuild and backfill on a large store stop after this long: paced around
 * a writer, each takes ~20 min over 1M rows; its latencies settle within the first minute. The
 * prune and the vacuum next to a writer have the same bound. */
const LARGE_WRITER_JOB_MS = 90_000;

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
    pruneMinMs: 200,
    transcriptMB: 2,
  }),
  full: (messages) => ({
    benchTimeMs: 500,
    // At 1M a common-word search takes about a second: 50 iterations per task would take minutes.
    benchIterations: messages <= LARGE_STORE ? 50 : 10,
    rounds: 3,
    spawns: 20,
    // Single appends take about a millisecond each: enough of them that the slowest tenth
    // (merges, checkpoints, slow fsyncs) is left out on both sides alike.
    singles: 1000,
    batches: 60,
    batchSize: 50,
    // Large stores take tens of seconds per job; small ones are noisy and cheap to repeat.
    ftsRuns: messages <= 20_000 ? 5 : messages <= LARGE_STORE ? 2 : 1,
    writerIdleMs: 1000,
    writerPauseMs: 5,
    writerMinJobMs: 5000,
    pruneMinMs: 0,
    // The single transcript: it streams with flat memory.
    transcriptMB: 200,
    ...(messages > LARGE_STORE ? { walkPages: LARGE_WALK_PAGES, writerMaxJobMs: LARGE_WRITER_JOB_MS } : {}),
  }),
};
