/**
 * The index's upkeep as operations: the backfill's start, steps and pending check, FTS5
 * 'optimize' and a bounded 'merge' (maintenanceTick). Skipped while the index is stale: only a
 * rebuild (fts/recovery.ts) may touch a detached index.
 */
import { exec, type Op, read, run, write } from "../engine/effects.js";
import { startBackfillTx } from "./backfill.js";
import { commandSql, type FtsIndexDef, rankCommandSql } from "./projection.js";
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

/** FTS5 'optimize' on both indexes, in one write. */
export function* optimizeIndexes(): Op<void> {
  yield* write(optimizeTx);
}

function* optimizeTx(): Op<void> {
  for (const def of yield* upkeepIndexes()) yield* exec(commandSql(def, "optimize"));
}

/** A bounded FTS5 'merge' of about `pages` pages per index, in one write. */
export function* mergeIndexes(pages: number): Op<void> {
  yield* write(() => mergeTx(pages));
}

function* mergeTx(pages: number): Op<void> {
  for (const def of yield* upkeepIndexes())
    yield* run(rankCommandSql(def, "merge"), Math.max(1, Math.floor(pages)));
}
