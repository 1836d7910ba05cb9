/**
 * The index's upkeep as operations: the backfill's start, steps and pending check, the
 * optimize (every segment merged into one) and a bounded 'merge' (maintenanceTick). Skipped while
 * the index is stale: only a rebuild (fts/recovery.ts) may touch a detached index.
 */
import { get, type Op, policy, read, run, write } from "../engine/effects.js";
import { paced, type StepMemory, type StepTiming, timedWrite } from "../maintenance/paced.js";
import { startBackfillTx } from "./backfill.js";
import {
  OPTIMIZE_MAX_CHUNK_PAGES,
  OPTIMIZE_MIN_CHUNK_PAGES,
  OPTIMIZE_START_CHUNK_PAGES,
} from "./constants.js";
import { type FtsIndexDef, rankCommandSql } from "./projection.js";
import { backfillWindow, isStale, loadSnapshot, presentIndexes } from "./state.js";

/** True while a backfill is pending (one small read). */
export function* backfillPending(): Op<boolean> {
  return yield* read(pendingNow);
}

function* pendingNow(): Op<boolean> {
  return backfillWindow((yield* loadSnapshot()).meta) !== undefined;
}

/** Seed a chunked backfill (no-op while a healthy one runs, or without FTS5). */
export function* startBackfill(): Op<void> {
  yield* write(startBackfillTx);
}

/** The indexes upkeep may touch: none while stale (re-checked inside the transaction, so a
 * fail-open retry of the body finds it stale). */
function* upkeepIndexes(): Op<readonly FtsIndexDef[]> {
  const snap = yield* loadSnapshot();
  return isStale(snap) ? [] : presentIndexes(snap);
}

/**
 * What FTS5 'optimize' does — merge every segment of both indexes into one — without holding the
 * write lock for it (FTS5's 'optimize' is one statement: ~3 s at 100k messages, ~10× that at 1M).
 * A 'merge' with a negative page count puts all segments on one level and merges about that many
 * pages, carrying on where the last one stopped; repeated until one does no work, it ends where
 * 'optimize' ends. Each is a step of a paced job (maintenance/paced.ts), in its own write.
 */
export function* optimizeIndexes(): Op<void> {
  const state = yield* policy();
  for (const def of yield* read(upkeepIndexes)) {
    // Writers keep adding small segments, so under a steady writer a merge always finds work:
    // stop after merging about twice what the index held when we started.
    const budget = { pages: 2 * (yield* read(() => indexBlocks(def))) + OPTIMIZE_MAX_CHUNK_PAGES };
    yield* paced<MergeStep>({
      step: (pages) => timedMergeStep(def, pages, state.steps),
      after: (step) => mergeRemains(step, budget),
      startChunk: OPTIMIZE_START_CHUNK_PAGES,
      minChunk: OPTIMIZE_MIN_CHUNK_PAGES,
      maxChunk: OPTIMIZE_MAX_CHUNK_PAGES,
    });
  }
}

interface MergeStep extends StepTiming {
  /** Pages the step asked FTS5 to merge. */
  pages: number;
  /** The merge found segments to merge (more may remain). */
  worked: boolean;
}

/** The index's stored blocks (about one page each). */
function* indexBlocks(def: FtsIndexDef): Op<number> {
  return Number((yield* get(`SELECT count(*) AS n FROM ${def.table}_data`))?.n ?? 0);
}

function* timedMergeStep(def: FtsIndexDef, pages: number, memory: StepMemory): Op<MergeStep> {
  const { outcome, timing } = yield* timedWrite(() => mergeAllStepTx(def, pages), memory);
  return { pages, worked: outcome, ...timing };
}

// biome-ignore lint/correctness/useYield: an operation that needs no statement
function* mergeRemains(step: MergeStep, budget: { pages: number }): Op<boolean> {
  budget.pages -= step.pages;
  return step.worked && budget.pages > 0;
}

/** One 'merge' of about `pages` pages over all of `def`'s segments; true when it did work
 * (FTS5 changes at least two rows then, its documented test). No work while detached. */
function* mergeAllStepTx(def: FtsIndexDef, pages: number): Op<boolean> {
  if (!(yield* upkeepIndexes()).includes(def)) return false;
  const before = Number((yield* get("SELECT total_changes() AS n"))?.n ?? 0);
  yield* run(rankCommandSql(def, "merge"), -Math.max(1, Math.floor(pages)));
  const after = Number((yield* get("SELECT total_changes() AS n"))?.n ?? 0);
  return after - before >= 2;
}

/** A bounded FTS5 'merge' of about `pages` pages per index, in one write. */
export function* mergeIndexes(pages: number): Op<void> {
  yield* write(() => mergeTx(pages));
}

function* mergeTx(pages: number): Op<void> {
  for (const def of yield* upkeepIndexes())
    yield* run(rankCommandSql(def, "merge"), Math.max(1, Math.floor(pages)));
}
