/**
 * `ftsStatus()`: what state the index is in, from the one-query snapshot. Row counts are taken
 * only while a backfill runs (one scan of the rowid b-tree, no content read).
 */
import { get, type Op } from "../engine/effects.js";
import { snapshot } from "../policy/calls.js";
import { META_FTS_STALE } from "./constants.js";
import { BASE_INDEX, TRIGRAM_INDEX } from "./projection.js";
import {
  backfillWindow,
  earlierProjectionObjects,
  type FtsSnapshot,
  hasIndex,
  isStale,
  loadSnapshot,
  projectionOutdated,
} from "./state.js";

/** State of the full-text index, told apart by `state`; `trigram`: the trigram (substring/CJK)
 * index exists. */
export type FtsStatus =
  /** Search answers from the index. */
  | { state: "ready"; trigram: boolean }
  /** A backfill is filling the index: `indexed` of `total` rows so far; search tops the index
   * up with a LIKE scan of the rest. */
  | { state: "backfilling"; trigram: boolean; indexed: number; total: number }
  /** The index was detached (`reason` says why); search answers by LIKE until a rebuild.
   * `madeBy`: its view or triggers are another version's — `"earlier"` (this version's next
   * writable open upgrades and rebuilds it) or `"newer"` (left for that version). */
  | { state: "stale"; trigram: boolean; reason: string; madeBy?: "earlier" | "newer" }
  /** This SQLite has no FTS5; search answers by LIKE. */
  | { state: "unavailable"; trigram: false };

function staleReason(snap: FtsSnapshot): string {
  const crumb = snap.meta.get(META_FTS_STALE);
  if (crumb === undefined && projectionOutdated(snap))
    return "the index was built by another version of sessiondb (its view or triggers differ); a writable open of this version rebuilds it, as does sessiondb fts rebuild";
  if (crumb === undefined) return "FTS triggers are missing (repair pending)";
  try {
    return String(JSON.parse(crumb).reason);
  } catch {
    return crumb;
  }
}

/** The status, in one read snapshot (the markers and the counts agree). */
export function* ftsStatus(): Op<FtsStatus> {
  return yield* snapshot(readFtsStatus);
}

/** Read the status inside a transaction or snapshot. */
export function* readFtsStatus(): Op<FtsStatus> {
  const snap = yield* loadSnapshot();
  if (!hasIndex(snap, BASE_INDEX)) return { state: "unavailable", trigram: false };
  const trigram = hasIndex(snap, TRIGRAM_INDEX);
  if (isStale(snap)) {
    if (!projectionOutdated(snap)) return { state: "stale", trigram, reason: staleReason(snap) };
    const earlier = yield* earlierProjectionObjects([...snap.outdated]);
    const madeBy = earlier.size === snap.outdated.size ? "earlier" : "newer";
    return { state: "stale", trigram, reason: staleReason(snap), madeBy };
  }
  const window = backfillWindow(snap.meta);
  if (!window) return { state: "ready", trigram };
  const row = yield* get(
    "SELECT count(*) AS total, coalesce(sum(id <= ? OR id > ?), 0) AS indexed FROM messages",
    window.progress,
    window.highWater,
  );
  return {
    state: "backfilling",
    trigram,
    indexed: Number(row?.indexed ?? 0),
    total: Number(row?.total ?? 0),
  };
}
