/**
 * Importer: `store.importSessions` of sessions it makes up as it goes (an async generator, the
 * way `sessiondb import` reads a file), next to the writers. Each session is one ledger group:
 * a `session` line and an `intent` line with all its messages (`whole: true`) before the store
 * may read it; once a step has committed it, an `ack` with the ids it was stored under (read
 * back: `importSessions` returns no ids). A kill -9 leaves the groups it had handed over in
 * flight — each must then be stored whole or not at all, session record included.
 * `maxSessions` ends the input; otherwise it runs until stopped.
 */
import { makeContent } from "./lib/content.mjs";
import { Rng } from "./lib/prng.mjs";
import { describeError, openedIn } from "./lib/runtime.mjs";

const MESSAGE_ROLES = ["user", "assistant", "assistant", "tool", "system"];

export async function importer({ cfg, report, adapter, stop }) {
  const rng = new Rng(`${cfg.seed}/${cfg.name}`);
  const store = await adapter.open(cfg.store);
  report.event("ready", { ...openedIn(adapter, store), driver: store.driverName });
  const handed = []; // { id, tokens } in input order
  let committed = 0; // sessions the store has dealt with (a prefix of `handed`)
  let acked = 0;
  let counter = 0;

  const ackCommitted = async () => {
    for (; acked < committed; acked++) {
      const { id, tokens } = handed[acked];
      const ids = (await store.getMessages(id, { includeInactive: true })).map((m) => m.id);
      report.event("ack", { session: id, tokens, ids });
    }
  };

  async function* sessions() {
    for (let n = 0; !stop.stopping() && (cfg.maxSessions === undefined || n < cfg.maxSessions); n++) {
      await ackCommitted();
      const id = `${cfg.name}-i${n}`;
      const specs = Array.from({ length: rng.int(1, cfg.maxMessages ?? 30) }, () => {
        const role = rng.pick(MESSAGE_ROLES);
        return { token: `zq${cfg.tag}w${counter++}k`, role, len: rng.int(40, role === "tool" ? 9000 : 1200) };
      });
      report.event("session", { id });
      report.event("intent", { session: id, batch: true, whole: true, msgs: specs });
      handed.push({ id, tokens: specs.map((m) => m.token) });
      yield {
        session: { id, source: adapter.runtime, model: "chamber" },
        messages: specs.map((m) => ({
          role: m.role,
          content: makeContent(m.token, m.role, m.len),
          ...(m.role === "tool" ? { toolName: "shell", toolCallId: `call-${m.token}` } : {}),
        })),
      };
    }
  }

  let result;
  try {
    result = await store.importSessions(sessions(), {
      onProgress: (p) => {
        committed = p.sessions;
        report.event("step", { sessions: p.sessions, messages: p.messages });
      },
    });
    await ackCommitted();
  } catch (error) {
    report.event("error", { error: describeError(error, adapter.mod.SessionDbError) });
  }
  report.event("done", {
    imported: result?.imported,
    failed: result?.failed.length,
    skipped: result?.skipped.length,
  });
  await store.close();
  report.event("closed", { reason: stop.reason() });
}
