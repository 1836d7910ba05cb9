/**
 * Churn: open, count, close in a loop (read-only or writable, seeded), sampling its descriptors
 * after every close: the count must stay flat however many iterations run.
 */
import { Rng } from "./lib/prng.mjs";
import { describeError, descriptors, openedIn, sleep } from "./lib/runtime.mjs";

export async function churn({ cfg, report, adapter, stop }) {
  const rng = new Rng(`${cfg.seed}/${cfg.name}`);
  let iter = 0;
  let errors = 0;
  report.event("ready", {});
  while (!stop.stopping()) {
    const readOnly = rng.chance(cfg.readOnlyRatio ?? 0.5);
    let stage = "open";
    try {
      const store = adapter.open(cfg.store, { readOnly });
      stage = "count";
      try {
        const n = store.messageCount();
        if (iter === 0) report.event("first", { count: n, ...openedIn(adapter, store), readOnly });
        else if (cfg.arm && store.journalMode !== cfg.arm)
          report.event("wrong_mode", { ...openedIn(adapter, store), readOnly });
      } finally {
        stage = "close";
        store.close();
      }
    } catch (error) {
      errors++;
      report.event("error", { readOnly, stage, error: describeError(error, adapter.mod.SessionDbError) });
    }
    iter++;
    if (iter % (cfg.sampleEvery ?? 10) === 0)
      report.event("fds", { iter, errors, ...descriptors(cfg.store) });
    await sleep(rng.int(0, cfg.pace ?? 10));
  }
  report.event("fds", { iter, errors, ...descriptors(cfg.store) });
  report.event("closed", { reason: stop.reason(), iter, errors });
}
