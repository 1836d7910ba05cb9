/**
 * One FTS indexing job in a fresh process, so its peak RSS is its own: `raw` (FTS5 'rebuild' of
 * both of the store's indexes through the raw binding, the limit), `rebuild` (store.rebuildFts),
 * `backfill` (store.startFtsBackfill + store.backfillFts to completion) or `optimize`
 * (store.optimizeFts; the writer suite runs it after the rebuild, which leaves many segments).
 * With a fourth argument the job repeats until that many ms have passed (the writer suite needs
 * a job long enough to collect latencies on small stores); `repeats` says how often it ran.
 * Usage: <runtime> dist/proc/fts-op.js <target> <db> <op> [min-ms]; prints one JSON line.
 */
import process from "node:process";
import { loadEngine, type TargetId } from "../engine.js";
import { now, peakRssMiB } from "../stats.js";

const [target, path, op, minMs] = process.argv.slice(2) as [
  TargetId,
  string,
  "raw" | "rebuild" | "backfill" | "optimize",
  string?,
];
const engine = await loadEngine(target);
const rssBefore = peakRssMiB().mib;
let ms = 0;
let rows: number;
let repeats = 0;
const more = () => repeats === 0 || ms < Number(minMs ?? 0);
const startedAt = Date.now();
if (op === "raw") {
  const db = engine.openRaw(path);
  db.exec("PRAGMA busy_timeout = 60000");
  db.exec("PRAGMA synchronous = FULL");
  rows = Number(db.prepare("SELECT count(*) AS n FROM messages").get()?.n);
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE name IN ('messages_fts', 'messages_fts_trigram') ORDER BY name",
    )
    .all()
    .map((r) => String(r.name));
  const t0 = now();
  for (; more(); repeats++) {
    db.exec("BEGIN IMMEDIATE");
    for (const table of tables) db.exec(`INSERT INTO ${table}(${table}) VALUES ('rebuild')`);
    db.exec("COMMIT");
    ms = now() - t0;
  }
  db.close();
} else {
  const store = engine.openStore(path);
  rows = store.messageCount();
  const t0 = now();
  for (; more(); repeats++) {
    if (op === "rebuild") {
      const result = store.rebuildFts();
      if (!result.rebuilt) throw new Error(`rebuildFts did not rebuild: ${result.reason}`);
    } else if (op === "optimize") {
      store.optimizeFts();
    } else {
      store.startFtsBackfill();
      await store.backfillFts();
    }
    ms = now() - t0;
  }
  const state = store.ftsStatus().state;
  store.close();
  if (state !== "ready") throw new Error(`FTS state after ${op} is ${state}, expected ready`);
}
const peak = peakRssMiB();
process.stdout.write(
  `${JSON.stringify({ op, ms: ms / repeats, repeats, rows, startedAt, endedAt: Date.now(), rssBeforeMiB: rssBefore, rssPeakMiB: peak.mib, rssExact: peak.exact })}\n`,
);
