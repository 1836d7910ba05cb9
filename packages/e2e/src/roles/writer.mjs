/**
 * Writer: appends single messages and batches to its own sessions. Before each append it logs
 * an `intent` line (tokens, roles, lengths); after it returns, an `ack` line with the ids; when
 * it throws, a `fail` line (a refused append must have stored nothing). Some tool rows are longer
 * than the 8192-character index prefix. `reopenEvery` makes it close and reopen the store like a
 * short-lived CLI would; `pace` is the pause between appends (0: a tight loop, so a kill -9
 * usually lands inside an append).
 *
 * `strayEvery` makes it the writer of the stray-descriptor episode: every so many appends it
 * also reads the store file behind SQLite's back, the way users back a store up — with
 * `readFileSync`, or `copyFileSync` to `strayCopyTo` — through a descriptor of its own, whose
 * close drops every POSIX lock this process holds on the file (sqlite.org "How To Corrupt"
 * §2.2). Logged as `stray_read`.
 */
import { copyFileSync, readFileSync } from "node:fs";
import { makeContent } from "./lib/content.mjs";
import { Rng } from "./lib/prng.mjs";
import { describeError, openedIn, sleep } from "./lib/runtime.mjs";

const MESSAGE_ROLES = ["user", "assistant", "assistant", "tool", "tool", "system"];

export async function writer({ cfg, report, adapter, stop }) {
  const rng = new Rng(`${cfg.seed}/${cfg.name}`);
  const sessions = Array.from({ length: cfg.sessions ?? 3 }, (_, i) => `${cfg.name}-s${i}`);
  let store;
  let opsSinceOpen = 0;
  let counter = 0;
  let acked = 0;
  let failed = 0;

  const open = async () => {
    store = await adapter.open(cfg.store);
    opsSinceOpen = 0;
    report.event("ready", {
      ...openedIn(adapter, store),
      sqlite: store.sqliteVersion,
      driver: store.driverName,
    });
  };

  const nextMessage = () => {
    // Digits between fixed letters: no token is a substring of another (substring search).
    const token = `zq${cfg.tag}w${counter++}k`;
    const role = rng.pick(MESSAGE_ROLES);
    let len;
    if (role === "tool")
      len = rng.chance(cfg.longToolRatio ?? 0.5)
        ? rng.int(8300, cfg.maxToolChars ?? 24_000)
        : rng.int(200, 4000);
    else len = rng.int(40, 1200);
    return { token, role, len };
  };

  let strayReads = 0;
  const strayRead = () => {
    const how = cfg.strayCopyTo && rng.chance(0.5) ? "copyFileSync" : "readFileSync";
    if (how === "copyFileSync") copyFileSync(cfg.store, cfg.strayCopyTo);
    const bytes = how === "readFileSync" ? readFileSync(cfg.store).length : undefined;
    report.event("stray_read", { n: ++strayReads, how, bytes });
  };

  for (;;) {
    if (stop.stopping()) break;
    if (cfg.maxOps !== undefined && acked + failed >= cfg.maxOps) break;
    try {
      if (!store) {
        await open();
        for (const id of sessions) {
          report.event("session", { id });
          await store.createSession({ id, source: adapter.runtime, model: "chamber" });
        }
      }
    } catch (error) {
      store = undefined;
      report.event("open_error", { error: describeError(error, adapter.mod.SessionDbError) });
      await sleep(cfg.retryMs ?? 200);
      continue;
    }

    const session = rng.pick(sessions);
    const size = rng.chance(cfg.batchRatio ?? 0.3) ? rng.int(2, cfg.maxBatch ?? 6) : 1;
    const specs = Array.from({ length: size }, nextMessage);
    const messages = specs.map((m) => ({
      role: m.role,
      content: makeContent(m.token, m.role, m.len),
      ...(m.role === "tool" ? { toolName: "shell", toolCallId: `call-${m.token}` } : {}),
    }));
    report.event("intent", { session, batch: size > 1, msgs: specs });
    try {
      const ids =
        size > 1
          ? await store.appendMessages(session, messages)
          : [await store.appendMessage(session, messages[0])];
      report.event("ack", { session, tokens: specs.map((m) => m.token), ids });
      acked++;
    } catch (error) {
      failed++;
      report.event("fail", {
        session,
        tokens: specs.map((m) => m.token),
        error: describeError(error, adapter.mod.SessionDbError),
      });
      await sleep(cfg.retryMs ?? 200);
    }
    opsSinceOpen++;
    if (cfg.reopenEvery && opsSinceOpen >= cfg.reopenEvery) {
      await store.close();
      store = undefined;
      report.event("closed", { reopen: true });
    }
    if (cfg.strayEvery && store && rng.int(1, cfg.strayEvery) === 1) strayRead();
    if (cfg.pace) await sleep(rng.int(0, cfg.pace));
    else await new Promise((resolve) => setImmediate(resolve));
  }
  await store?.close();
  report.event("closed", { reason: stop.reason(), acked, failed, strayReads });
}
