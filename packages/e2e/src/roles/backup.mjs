/**
 * Backup: takes `store.backup` copies to fresh paths while the other roles run (and die), on a
 * store it opened writable or read-only (seeded). Before each one it records a `backup_begin`
 * with the ledger's cut at that moment (every report file's size), so the checker can tell which
 * appends were acknowledged before the backup began: those must all be in it. Then
 * `backup_done` (method, size, the copy's index state) or, when it throws, `error`.
 */
import { join } from "node:path";
import { reportCut } from "./lib/ledger.mjs";
import { Rng } from "./lib/prng.mjs";
import { describeError, openedIn, sleep } from "./lib/runtime.mjs";

export async function backup({ cfg, report, adapter, stop }) {
  const rng = new Rng(`${cfg.seed}/${cfg.name}`);
  const readOnly = rng.chance(cfg.readOnlyRatio ?? 0.5);
  const store = adapter.open(cfg.store, { readOnly });
  report.event("ready", { ...openedIn(adapter, store), readOnly, driver: store.driverName });
  let taken = 0;
  for (let n = 0; n < (cfg.count ?? 3) && !stop.stopping(); n++) {
    await sleep(rng.int(cfg.minPace ?? 200, cfg.maxPace ?? 600));
    const dest = join(cfg.backupsDir, `${cfg.name}-${n}.db`);
    report.event("backup_begin", { n, dest, cut: reportCut(cfg.reportsDir) });
    const started = Date.now();
    try {
      const result = await store.backup(dest);
      taken++;
      report.event("backup_done", {
        n,
        dest,
        method: result.method,
        bytes: result.bytes,
        journalMode: result.journalMode,
        fts: result.fts?.state,
        notes: result.notes,
        ms: Date.now() - started,
      });
    } catch (error) {
      report.event("error", { n, dest, error: describeError(error, adapter.mod.SessionDbError) });
    }
  }
  store.close();
  report.event("closed", { reason: stop.reason(), taken });
}
