/**
 * The index's upkeep as operations: the backfill's start, steps and pending check, the
 * optimize (every segment merged into one) and a bounded 'merge' (maintenanceTick). Skipped while
 * the index is stale: only a rebuild (fts/recovery.ts) may touch a detached index.
 */
import { exec, get, type Op, run } from "../engine/effects.js";
import { paced, type StepTiming, timedWrite } from "../maintenance/paced.js";
import { policy, read, write } from "../policy/calls.js";
import type { StepMemory } from "../policy/state.js";
import { startBackfillTx } from "./backfill.js";
import {
  FTS5_DEFAULT_USERMERGE,
  OPTIMIZE_MAX_CHUNK_PAGES,
  OPTIMIZE_MIN_CHUNK_PAGES,
  OPTIMIZE_START_CHUNK_PAGES,
  OPTIMIZE_USERMERGE,
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
 * Optimize both indexes without holding the write lock for it. FTS5's 'optimize' is one
 * statement that merges every segment into one (~3 s of write lock at 100k messages, ~10× that
 * at 1M). Instead each step is one FTS5 'merge' of about N pages with `usermerge` at 2 for that
 * statement: any level holding two or more segments is merged, carrying on where the last step
 * stopped, until a merge does no work (FTS5 changes fewer than two rows then, its documented
 * test). The index ends with at most one segment per level — a handful, the largest holding
 * nearly everything — where 'optimize' leaves one. A negative page count ('merge', -N: "every
 * segment on one level") would end at one segment, but between two such steps a writer's new
 * segment makes FTS5 restructure again; measured under a steady writer that reached FTS5's
 * limit of 2000 segments, after which every write to the index fails (SQLITE_FULL).
 * Each step is a step of a paced job (maintenance/paced.ts), in its own write.
 */
export function* optimizeIndexes(): Op<void> {
  const state = yield* policy();
  for (const def of yield* read(upkeepIndexes)) {
    // A steady writer keeps adding small segments, so a merge always finds work: stop after
    // merging about as many pages as the index held when we started (one rewrite of it).
    const budget = { pages: (yield* read(() => indexBlocks(def))) + OPTIMIZE_MAX_CHUNK_PAGES };
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
  const { outcome, timing } = yield* timedWrite(() => mergeStepTx(def, pages), memory);
  return { pages, worked: outcome, ...timing };
}

// biome-ignore lint/correctness/useYield: an operation that needs no statement
function* mergeRemains(step: MergeStep, budget: { pages: number }): Op<boolean> {
  budget.pages -= step.pages;
  return step.worked && budget.pages > 0;
}

/** FTS5 takes `usermerge` only as an integer value, and some bindings send every JS number as
 * a REAL: the value goes into the SQL text (a constant of this module). */
const usermergeSql = (def: FtsIndexDef, value: number) =>
  `INSERT INTO ${def.table}(${def.table}, rank) VALUES ('usermerge', ${Math.trunc(value)})`;

/** One 'merge' of about `pages` pages over every level with two or more segments; true when it
 * did work. `usermerge` is FTS5's persistent setting: set for this statement only, within the
 * same transaction. No work while detached. */
function* mergeStepTx(def: FtsIndexDef, pages: number): Op<boolean> {
  if (!(yield* upkeepIndexes()).includes(def)) return false;
  yield* exec(usermergeSql(def, OPTIMIZE_USERMERGE));
  const before = Number((yield* get("SELECT total_changes() AS n"))?.n ?? 0);
  yield* run(rankCommandSql(def, "merge"), Math.max(1, Math.floor(pages)));
  const after = Number((yield* get("SELECT total_changes() AS n"))?.n ?? 0);
  yield* exec(usermergeSql(def, FTS5_DEFAULT_USERMERGE));
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
