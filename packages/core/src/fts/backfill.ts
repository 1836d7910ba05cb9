/**
 * The chunked, resumable backfill (spec §5): populate the index on a large live store without
 * holding the write lock for the whole job.
 *
 * Seed (one transaction): empty both indexes ('delete-all'), publish the triggers, record
 * `high_water = MAX(messages.id)` and `progress = 0`. From then on the triggers index ids above
 * the high-water mark live (AUTOINCREMENT ids only grow) and ignore the pending window.
 * Step (one transaction): read progress, index `(progress, min(progress + chunk, high_water)]`
 * from the source views, write the new progress — so a `kill -9` resumes exactly where the last
 * commit left off, and steps from several processes serialize on the write lock. The last step
 * sweeps the rows around the high-water mark for any without a docsize row, then clears the
 * markers. Broken markers are healed by re-seeding.
 */
import { BACKFILL_BOUNDARY_SWEEP_IDS } from "../constants.js";
import { exec, get, type Op, run } from "../engine/effects.js";
import { type StepTiming, timedWrite } from "../maintenance/paced.js";
import type { StepMemory } from "../policy/state.js";
import { DELETE_META_SQL, UPSERT_META_SQL } from "../schema/ddl.js";
import { META_BACKFILL_HIGH_WATER, META_BACKFILL_PROGRESS, META_FTS_STALE } from "./constants.js";
import { commandSql, indexWindowSql, sweepWindowSql, viewDdl } from "./projection.js";
import {
  backfillMarkersBroken,
  backfillWindow,
  type FtsSnapshot,
  isStale,
  loadSnapshot,
  presentIndexes,
} from "./state.js";
import { publishTriggersOp } from "./triggers.js";

/** What one step did. */
export interface StepOutcome {
  /** More windows remain. */
  remains: boolean;
  /** Ids `(from, to]` this step indexed (equal when it did none). */
  from: number;
  to: number;
  /** Rows the step put into the word index. */
  rows: number;
  /** The id the backfill runs up to (0 when none is pending). */
  highWater: number;
}

/** A step as the paced loop sees it: what it did, and how its transaction went. */
export interface TimedStep extends StepOutcome, StepTiming {}

/** Inside a transaction: empty the indexes, publish triggers, set the markers. This is also the
 * structural part of a full rebuild (fts/recovery.ts): afterwards the index is consistent and
 * trusted, only incomplete, and search tops it up by LIKE until the steps have indexed it all. */
export function* seed(snap: FtsSnapshot): Op<void> {
  const defs = presentIndexes(snap);
  for (const def of defs) {
    // Another build's view (a newer one: an earlier one's is replaced at open) is made this
    // build's, so the triggers published below index what FTS5 reads back from it.
    if (snap.outdated.has(def.view)) yield* exec(`DROP VIEW ${def.view}`);
    yield* exec(viewDdl(def));
    yield* exec(commandSql(def, "delete-all"));
  }
  yield* publishTriggersOp(defs);
  const highWater = Number((yield* get("SELECT coalesce(max(id), 0) AS hw FROM messages"))?.hw ?? 0);
  yield* run(UPSERT_META_SQL, META_BACKFILL_HIGH_WATER, String(highWater));
  yield* run(UPSERT_META_SQL, META_BACKFILL_PROGRESS, "0");
  // The seeded state is consistent on its own: the index is no longer stale, only incomplete.
  yield* run(DELETE_META_SQL, META_FTS_STALE);
}

/** Inside a transaction: start a backfill unless a healthy one is already running. False when FTS5 is missing. */
export function* startBackfillTx(): Op<boolean> {
  const snap = yield* loadSnapshot();
  if (presentIndexes(snap).length === 0) return false;
  if (backfillWindow(snap.meta) && !isStale(snap)) return true;
  yield* seed(snap);
  return true;
}

/** Inside a transaction: heal broken markers by re-seeding. True when it healed. */
export function* healMarkersTx(): Op<boolean> {
  const snap = yield* loadSnapshot();
  if (!backfillMarkersBroken(snap.meta) || presentIndexes(snap).length === 0) return false;
  // A missing progress key cannot say what is indexed; keeping the old high-water mark would
  // lose the live rows above it that 'delete-all' removes, so the mark is re-taken too.
  yield* seed(snap);
  return true;
}

/**
 * Inside a transaction: one backfill step of at most `chunkIds` ids. `afterIndex` is a test hook
 * that runs after the window was indexed and before progress is written (crash simulation).
 */
export function* backfillStepTx(chunkIds: number, afterIndex?: () => void): Op<StepOutcome> {
  if (yield* healMarkersTx()) return { remains: true, from: 0, to: 0, rows: 0, highWater: 0 };
  const snap = yield* loadSnapshot();
  const window = backfillWindow(snap.meta);
  const defs = presentIndexes(snap);
  // Stale means detached: the recovery rebuild owns the index now (and clears the markers).
  if (!window || defs.length === 0 || isStale(snap))
    return { remains: false, from: 0, to: 0, rows: 0, highWater: 0 };
  const { highWater, progress } = window;
  const end = Math.min(progress + Math.max(1, Math.floor(chunkIds)), highWater);
  let rows = 0;
  if (progress < highWater) {
    for (const [i, def] of defs.entries()) {
      const { changes } = yield* run(indexWindowSql(def), progress, end);
      if (i === 0) rows = changes;
    }
    afterIndex?.();
    yield* run(UPSERT_META_SQL, META_BACKFILL_PROGRESS, String(end));
    if (end < highWater) return { remains: true, from: progress, to: end, rows, highWater };
  }
  // Done: belt and braces around the boundary, then the window closes and triggers act on all ids.
  for (const def of defs) {
    yield* run(
      sweepWindowSql(def),
      highWater - BACKFILL_BOUNDARY_SWEEP_IDS,
      highWater + BACKFILL_BOUNDARY_SWEEP_IDS,
    );
  }
  yield* run(DELETE_META_SQL, META_BACKFILL_HIGH_WATER);
  yield* run(DELETE_META_SQL, META_BACKFILL_PROGRESS);
  return { remains: false, from: progress, to: Math.max(progress, end), rows, highWater };
}

/** One step in its own write transaction, timed (maintenance/paced.ts). */
export function* timedBackfillStep(chunkIds: number, memory: StepMemory): Op<TimedStep> {
  const { outcome, timing } = yield* timedWrite(() => backfillStepTx(chunkIds), memory);
  return { ...outcome, ...timing };
}

/** Rows with ids in `(after, upTo]`, for progress reports. */
export function* countRows(after: number, upTo: number): Op<number> {
  return Number(
    (yield* get("SELECT count(*) AS n FROM messages WHERE id > ? AND id <= ?", after, upTo))?.n ?? 0,
  );
}
