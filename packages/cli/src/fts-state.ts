/**
 * The full-text index's state in words, for every command that reports it (stats, doctor,
 * backup, fts): a module of its own, so that `stats` does not load the fts commands with it.
 */
import type { FtsStatus } from "@sessiondb/core";
import { count } from "./format.js";

/** "ready", "backfilling (1,200/5,000 rows indexed, 24.0%)", "stale: reason", … */
export function describeFts(status: FtsStatus): string {
  const trigram = status.trigram ? "" : " (no trigram index)";
  switch (status.state) {
    case "backfilling": {
      const { indexed, total } = status;
      const pct = total > 0 ? ((indexed / total) * 100).toFixed(1) : "100.0";
      return `backfilling (${count(indexed)}/${count(total)} rows indexed, ${pct}%; resume with "sessiondb fts backfill")${trigram}`;
    }
    case "stale":
      return `stale — search answers by LIKE until "sessiondb fts rebuild": ${status.reason}`;
    case "unavailable":
      return "unavailable — this SQLite has no FTS5; search answers by LIKE";
    default:
      return `ready${trigram}`;
  }
}
