/**
 * Pruner: `store.deleteSessions` of a seeded share of the importers' sessions still in the store
 * (never a writer's: the writers' appends must all stay), paced around the writers the way
 * `sessiondb prune` is. Logs a `delete` line naming every session it sets out to delete before
 * the call, a `step` line per step, and a `deleted` line once the call has returned. A kill -9
 * leaves those sessions each gone whole or there whole.
 */
import { Rng } from "./lib/prng.mjs";
import { describeError, openedIn } from "./lib/runtime.mjs";

export async function pruner({ cfg, report, adapter, stop }) {
  const rng = new Rng(`${cfg.seed}/${cfg.name}`);
  const store = await adapter.open(cfg.store);
  report.event("ready", { ...openedIn(adapter, store), driver: store.driverName });
  const imported = (await store.listSessions({ limit: 1_000_000, includeArchived: true }))
    .map((s) => s.id)
    .filter((id) => /-i\d+$/.test(id));
  // A seeded order (Fisher–Yates), then the first share of it.
  for (let i = imported.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [imported[i], imported[j]] = [imported[j], imported[i]];
  }
  const ids = imported.slice(0, Math.ceil(imported.length * (cfg.share ?? 0.5)));
  report.event("delete", { sessions: ids });
  const controller = new AbortController();
  const timer = setInterval(() => stop.stopping() && controller.abort(), 20);
  try {
    const result = await store.deleteSessions(ids, {
      signal: controller.signal,
      onProgress: (p) => report.event("step", { sessions: p.sessions, messages: p.messages }),
    });
    const missing = new Set(result.notFound);
    report.event("deleted", { sessions: ids.filter((id) => !missing.has(id)), notFound: result.notFound });
  } catch (error) {
    // Stopped between two steps: what was deleted stays deleted, the rest is untouched.
    if (controller.signal.aborted) report.event("stopped", {});
    else report.event("error", { error: describeError(error, adapter.mod.SessionDbError) });
  } finally {
    clearInterval(timer);
  }
  await store.close();
  report.event("closed", { reason: stop.reason() });
}
