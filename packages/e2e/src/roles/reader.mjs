/**
 * Reader: a long-lived read-only connection that lists sessions and reports any per-session or
 * total count that went down, samples its descriptors, and searches for tokens other writers
 * acknowledged (each must be found exactly once, whatever the index is doing).
 */
import { readFileSync } from "node:fs";
import { Rng } from "./lib/prng.mjs";
import { describeError, descriptors, openedIn, sleep } from "./lib/runtime.mjs";

/** Acked tokens (head tokens only, with their ids and roles) from the writers' reports. */
function ackedTokens(paths) {
  const roles = new Map();
  const acked = [];
  for (const path of paths) {
    let text;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      if (!line.endsWith("}")) continue;
      const ev = JSON.parse(line);
      if (ev.t === "intent") for (const m of ev.msgs) roles.set(m.token, m.role);
      if (ev.t === "ack") {
        for (const [i, token] of ev.tokens.entries())
          acked.push({ token, id: ev.ids[i], role: roles.get(token) });
      }
    }
  }
  return acked;
}

export async function reader({ cfg, report, adapter, stop }) {
  const rng = new Rng(`${cfg.seed}/${cfg.name}`);
  const store = adapter.open(cfg.store, { readOnly: true });
  report.event("ready", {
    ...openedIn(adapter, store),
    sqlite: store.sqliteVersion,
    driver: store.driverName,
  });
  const seen = new Map();
  let seenTotal = 0;
  let rounds = 0;
  let searches = 0;
  const reportStats = () =>
    report.event("stats", {
      rounds,
      searches,
      total: seenTotal,
      fds: descriptors(cfg.store),
      counts: Object.fromEntries(seen),
    });
  let tokens = [];
  while (!stop.stopping()) {
    try {
      const total = store.messageCount();
      if (total < seenTotal)
        report.event("count_decreased", { scope: "total", before: seenTotal, after: total });
      seenTotal = Math.max(seenTotal, total);
      for (const s of store.listSessions({ limit: 100_000, includeArchived: true })) {
        const before = seen.get(s.id) ?? 0;
        if (s.messageCount < before)
          report.event("count_decreased", { scope: s.id, before, after: s.messageCount });
        seen.set(s.id, Math.max(before, s.messageCount));
      }
      if (cfg.searchPaths && rounds % 5 === 0) tokens = ackedTokens(cfg.searchPaths);
      for (let i = 0; i < (cfg.searchesPerRound ?? 3) && tokens.length > 0; i++) {
        const want = rng.pick(tokens);
        const result = store.search(want.token, { limit: 5 });
        const hits = result.hits.filter((h) => h.messageId === want.id).length;
        searches++;
        if (hits !== 1 || result.hits.length !== 1) {
          report.event("search_miss", {
            token: want.token,
            id: want.id,
            messageRole: want.role,
            route: result.route,
            hits: result.hits.map((h) => h.messageId),
          });
        }
      }
    } catch (error) {
      report.event("error", { error: describeError(error, adapter.mod.SessionDbError) });
    }
    rounds++;
    if (rounds % 10 === 0) reportStats();
    await sleep(cfg.pace ?? 50);
  }
  store.close();
  reportStats();
  report.event("closed", { reason: stop.reason() });
}
