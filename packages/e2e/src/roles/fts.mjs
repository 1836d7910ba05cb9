/**
 * FTS maintenance: `rebuildFts` then `optimizeFts`, `iterations` times. Logs `rebuild_call`
 * before the call and `rebuild_return` (rebuilt, reason, duration) after it, so the harness can
 * line the call window up with who held the admission lock.
 */
import { describeError, openedIn, sleep } from "./lib/runtime.mjs";

export async function fts({ cfg, report, adapter, stop }) {
  const store = await adapter.open(cfg.store);
  report.event("ready", { ...openedIn(adapter, store), fts: (await store.ftsStatus()).state });
  for (let i = 0; i < (cfg.iterations ?? 1) && !stop.stopping(); i++) {
    const started = Date.now();
    report.event("rebuild_call", { i });
    try {
      const result = await store.rebuildFts({ timeoutMs: cfg.timeoutMs ?? 60_000 });
      report.event("rebuild_return", { i, ...result, ms: Date.now() - started });
      await store.optimizeFts();
      report.event("optimize_done", { i, fts: (await store.ftsStatus()).state });
    } catch (error) {
      report.event("error", { i, error: describeError(error, adapter.mod.SessionDbError) });
    }
    await sleep(cfg.pace ?? 0);
  }
  await store.close();
  report.event("closed", { reason: stop.reason() });
}
