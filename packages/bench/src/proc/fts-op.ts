/**
 * One FTS indexing job in a fresh process, so its peak RSS is its own: `raw` (FTS5 'rebuild' of
 * both of the store's indexes through the raw binding, the limit), `rebuild` (store.rebuildFts),
 * `backfill` (store.startFtsBackfill + store.backfillFts to completion) or `optimize`
 * (store.optimizeFts; the writer suite runs it after the rebuild, which leaves many segments).
 * With a fourth argument the job repeats until that many ms have passed (the writer suite needs
 * a job long enough to collect latencies on small stores); `repeats` says how often it ran.
 * A fifth argument stops a rebuild or backfill after that many ms (the writer suite on a large
 * store: a paced job over 1M rows with a writer present takes ~20 min): the backfill through its
 * AbortSignal, the rebuild by its onProgress callback throwing. Either leaves the index with a
 * pending backfill window, as a crash would, which the next rebuild or backfill takes over.
 * Usage: <runtime> dist/proc/fts-op.js <target> <db> <op> [min-ms [max-ms]]; prints one JSON line.
 */
import process from "node:process";
import { loadEngine, type TargetId } from "../engine.js";
import { now, peakRssMiB } from "../stats.js";

const [target, path, op, minMs, maxMs] = process.argv.slice(2) as [
  TargetId,
  string,
  "raw" | "rebuild" | "backfill" | "optimize",
  string?,
  string?,
];
/** Thrown from rebuildFts's onProgress when the time is up. */
class TimeUp extends Error {}
const bound = maxMs === undefined ? undefined : Number(maxMs);
let stopped = false;
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
  // An optimize leaves the index as it found it (mid-backfill after a rebuild stopped early).
  const before = store.ftsStatus().state;
  const t0 = now();
  for (; more(); repeats++) {
    if (op === "rebuild") {
      const deadline = bound === undefined ? undefined : now() + bound;
      try {
        const result = store.rebuildFts(
          deadline === undefined
            ? {}
            : {
                onProgress: () => {
                  if (now() >= deadline) throw new TimeUp();
                },
              },
        );
        if (!result.rebuilt) throw new Error(`rebuildFts did not rebuild: ${result.reason}`);
      } catch (error) {
        if (!(error instanceof TimeUp)) throw error;
        stopped = true;
      }
    } else if (op === "optimize") {
      store.optimizeFts();
    } else {
      store.startFtsBackfill();
      try {
        await store.backfillFts(bound === undefined ? {} : { signal: AbortSignal.timeout(bound) });
      } catch (error) {
        if (!(bound !== undefined && error instanceof Error && /abort|timeout/i.test(error.name)))
          throw error;
        stopped = true;
      }
    }
    ms = now() - t0;
    if (stopped) {
      repeats++;
      break;
    }
  }
  const state = store.ftsStatus().state;
  store.close();
  const expected = stopped ? "backfilling" : op === "optimize" ? before : "ready";
  if (state !== expected) throw new Error(`FTS state after ${op} is ${state}, expected ${expected}`);
}
const peak = peakRssMiB();
process.stdout.write(
  `${JSON.stringify({ op, ms: ms / Math.max(1, repeats), repeats, stopped, rows, startedAt, endedAt: Date.now(), rssBeforeMiB: rssBefore, rssPeakMiB: peak.mib, rssExact: peak.exact })}\n`,
);
