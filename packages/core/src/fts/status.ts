/**
 * `ftsStatus()`: what state the index is in, from the one-query snapshot. Row counts are taken
 * only while a backfill runs (one scan of the rowid b-tree, no content read).
 */
import type { StoreContext } from "../store/context.js";
import { META_FTS_STALE } from "./constants.js";
import { BASE_INDEX, TRIGRAM_INDEX } from "./projection.js";
import { backfillWindow, hasIndex, isStale, readSnapshot } from "./state.js";

/** State of the full-text index. */
export interface FtsStatus {
  state: "ready" | "backfilling" | "stale" | "unavailable";
  /** The trigram (substring/CJK) index exists. */
  trigram: boolean;
  /** While backfilling: rows the word index holds, and rows it will hold. */
  indexed?: number;
  total?: number;
  /** While stale: why the index was detached. */
  reason?: string;
}

function staleReason(crumb: string | undefined): string {
  if (crumb === undefined) return "FTS triggers are missing (repair pending)";
  try {
    return String(JSON.parse(crumb).reason);
  } catch {
    return crumb;
  }
}

/** Read the status (call inside `ctx.snapshot`: the markers and the counts from one snapshot). */
export function readFtsStatus(ctx: StoreContext): FtsStatus {
  const snap = readSnapshot((sql) => ctx.statement(sql));
  if (!hasIndex(snap, BASE_INDEX)) return { state: "unavailable", trigram: false };
  const trigram = hasIndex(snap, TRIGRAM_INDEX);
  if (isStale(snap)) return { state: "stale", trigram, reason: staleReason(snap.meta.get(META_FTS_STALE)) };
  const window = backfillWindow(snap.meta);
  if (!window) return { state: "ready", trigram };
  const row = ctx
    .statement("SELECT count(*) AS total, coalesce(sum(id <= ? OR id > ?), 0) AS indexed FROM messages")
    .get(window.progress, window.highWater);
  return {
    state: "backfilling",
    trigram,
    indexed: Number(row?.indexed ?? 0),
    total: Number(row?.total ?? 0),
  };
}
