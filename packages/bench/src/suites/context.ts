/** What every suite gets from the runner. */

/** How hard to measure: `smoke` runs each thing once, `full` measures for real. */
export interface Plan {
  /** tinybench time budget per task (ms); 0 with iterations 1 = one iteration. */
  benchTimeMs: number;
  benchIterations: number;
  /** Alternating tinybench rounds for the cold open. */
  rounds: number;
  /** Whole-process spawns per side. */
  spawns: number;
  /** Single appends per side, and batches (of `batchSize`) per side. */
  singles: number;
  batches: number;
  batchSize: number;
  /** FTS jobs per kind (raw, rebuild, backfill), interleaved. */
  ftsRuns: number;
  /** Writer: idle lead-in before the job starts (ms), and pause between appends (ms). */
  writerIdleMs: number;
  writerPauseMs: number;
  /** Writer: the job repeats until it has run this long (small stores index in well under 1 s). */
  writerMinJobMs: number;
  /** Writer: stop a rebuild or backfill after this long (ms; undefined: run it to the end). */
  writerMaxJobMs?: number;
  /** Prune: keep deleting sessions past its share of the messages until this long has passed
   * (a tiny store prunes in a few ms, too short for a writer next to it to notice). */
  pruneMinMs: number;
  /** The long transcript whose import's memory is watched (suites/import-from.ts), in MB. */
  transcriptMB: number;
  /** Search walk: stop after this many cursor pages (undefined: every hit). */
  walkPages?: number;
}

export interface SuiteContext {
  /** This target's working copy of the corpus store. */
  db: string;
  /** The cached corpus store the copy was made from: only ever copied, never opened (a suite
   * that destroys data makes a copy of its own from it). */
  corpus: string;
  /** Messages in the store when the run began. */
  messages: number;
  /** A session in the middle of the corpus (cold-open query). */
  sessionId: string;
  /** UTF-8 bytes of all messages' indexed columns, for MB/s. */
  bytes: number;
  /** How to start this same runtime (argv prefix). */
  exec: readonly string[];
  /** Working directory for scratch files. */
  work: string;
  plan: Plan;
  metric(name: string, value: number): void;
  note(name: string, value: string): void;
}
