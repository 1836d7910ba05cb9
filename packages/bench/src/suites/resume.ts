/**
 * Resume: what an agent does when it comes back to a session — read the last N messages (its
 * context window). The session is the corpus's longest, so a read that cost O(session) instead
 * of O(N) would show. Three settings, each against the raw binding doing the same indexed read:
 * on a store a long-running process (a gateway) already has open — `getMessages(session,
 * { last })` against the raw statement prepared once; in-process with the open (tinybench,
 * alternating rounds) — open → read → close; and in a fresh process of the same runtime —
 * import + open + read.
 */
import type { Engine } from "../engine.js";
import { RESUME_SQL } from "../proc/resume-sql.js";
import { processMetrics, spawnBothSides, storeVsRawInProcess } from "./cold.js";
import type { SuiteContext } from "./context.js";

/** Messages an agent reads back. */
const LAST = 50;

export async function resumeSuite(engine: Engine, ctx: SuiteContext): Promise<void> {
  const probe = engine.openRaw(ctx.db);
  const longest = probe
    .prepare(
      "SELECT session_id AS id, count(*) AS n FROM messages GROUP BY session_id ORDER BY n DESC LIMIT 1",
    )
    .get();
  probe.close();
  const session = String(longest?.id);
  const expected = Math.min(LAST, Number(longest?.n));
  ctx.note("resume.session", `${session}: ${longest?.n} messages, last ${LAST} read`);

  const tasks = {
    store: () => {
      const store = engine.openStore(ctx.db);
      if (store.getMessages(session, { last: LAST }).length !== expected)
        throw new Error("resume read short");
      store.close();
    },
    raw: () => {
      const db = engine.openRaw(ctx.db);
      const statement = db.prepare(RESUME_SQL);
      if (statement.all(session, LAST).length !== expected) throw new Error("raw resume read short");
      statement.finalize?.(); // a real close on bun:sqlite too, as the store's (cold.ts)
      db.close();
    },
  };
  await storeVsRawInProcess(ctx, "resume.inproc", tasks);

  // On an open store: each side keeps its connection, and its statement prepared, across calls.
  const open = engine.openStore(ctx.db);
  const connection = engine.openRaw(ctx.db);
  const statement = connection.prepare(RESUME_SQL);
  try {
    await storeVsRawInProcess(ctx, "resume.warm", {
      store: () => {
        if (open.getMessages(session, { last: LAST }).length !== expected)
          throw new Error("resume read short");
      },
      raw: () => {
        if (statement.all(session, LAST).length !== expected) throw new Error("raw resume read short");
      },
    });
  } finally {
    open.close();
    connection.close();
  }

  processMetrics(ctx, "resume", spawnBothSides(engine, ctx, [session, String(LAST)], expected));
}
