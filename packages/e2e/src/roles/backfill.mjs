/**
 * Backfill: start a chunked backfill (or resume the one already pending) and run it to
 * completion, one `ftsBackfillStep` per event-loop turn (mode "steps") or through the async
 * `backfillFts` loop (mode "loop"). Logs a `step` event per chunk so the harness can kill it
 * mid-run and hand the rest to another runtime.
 */
import { describeError, openedIn, sleep } from "./lib/runtime.mjs";

export async function backfill({ cfg, report, adapter, stop }) {
  const store = await adapter.open(cfg.store);
  const before = await store.ftsStatus();
  report.event("ready", { ...openedIn(adapter, store), fts: before });
  if (cfg.start || before.state !== "backfilling") {
    await store.startFtsBackfill();
    report.event("started", { fts: await store.ftsStatus() });
  } else {
    report.event("resumed", { fts: before });
  }
  let steps = 0;
  try {
    if (cfg.mode === "loop") {
      const controller = new AbortController();
      const timer = setInterval(() => stop.stopping() && controller.abort(), 20);
      try {
        await store.backfillFts({
          chunkRows: cfg.chunkRows,
          signal: controller.signal,
          onProgress: (p) => report.event("step", { n: ++steps, ...p }),
        });
      } finally {
        clearInterval(timer);
      }
    } else {
      for (;;) {
        if (stop.stopping()) break;
        const remains = await store.ftsBackfillStep({ chunkRows: cfg.chunkRows });
        report.event("step", { n: ++steps, remains });
        if (!remains) break;
        await sleep(cfg.pace ?? 0);
      }
    }
  } catch (error) {
    report.event("error", { error: describeError(error, adapter.mod.SessionDbError) });
  }
  report.event("done", { steps, fts: await store.ftsStatus() });
  await store.close();
  report.event("closed", { reason: stop.reason() });
}
