/**
 * Many sessions at once through one process (issue 37): SESSIONS sessions each append one
 * realistic message at the same moment, round after round, on a libSQL server — the gateway's
 * load. Three sides, in rounds whose order rotates so drift hits each alike:
 * - store: `appendMessage` per session, all at once (the store commits them together: group
 *   commit, packages/core/src/group-commit.ts); every call resolves once its row is committed;
 * - raw, one call at a time: `@libsql/client` sending each INSERT as its own request, autocommit,
 *   one after the other (sent all at once, sqld 0.24.32 answers most of them SQLITE_BUSY
 *   "database is locked": a hand-written gateway must serialize them, or retry);
 * - raw, batched by hand: one `client.batch` of the round's INSERTs (one transaction).
 * The raw sides insert the same rows into the same tables (the FTS triggers run on both) but
 * keep no session counters, as a hand-written store would not. Messages/s from each side's total
 * round time; p50/p99 of the time from the round's start (when the 50 sessions asked) to each
 * call's resolution (the batch's calls all resolve with it).
 */
import type { MessageInput } from "@sessiondb/core";
import { RAW_INSERT_MESSAGE_SQL, rawInsertArgs } from "../raw-append.js";
import { latency, now } from "../stats.js";

export const SESSIONS = 50;

type Stmt = { sql: string; args: unknown[] };

/** What the suite needs of the store and of @libsql/client. */
export interface ConcurrentSides {
  store: {
    createSession(input: { id: string; source: string }): Promise<unknown>;
    appendMessage(sessionId: string, message: MessageInput): Promise<number>;
  };
  client: {
    execute(stmt: Stmt): Promise<unknown>;
    batch(stmts: Stmt[], mode: "write"): Promise<unknown>;
  };
}

type Side = "store" | "raw" | "batch";
const SIDES: readonly Side[] = ["store", "raw", "batch"];

/** Run `rounds` rounds per side; the metrics `server.concurrent.*`. */
export async function concurrentAppends(
  { store, client }: ConcurrentSides,
  messages: MessageInput[],
  rounds: number,
): Promise<{ metrics: Record<string, number>; note: string }> {
  const sessions = Object.fromEntries(
    SIDES.map((side) => [side, Array.from({ length: SESSIONS }, (_, i) => `bench-many-${side}-${i}`)]),
  ) as Record<Side, string[]>;
  for (const side of SIDES)
    for (const id of sessions[side]) await store.createSession({ id, source: "bench" });
  const pick = (round: number, i: number) =>
    messages[(round * SESSIONS + i) % messages.length] as MessageInput;
  const insert = (id: string, m: MessageInput): Stmt => ({
    sql: RAW_INSERT_MESSAGE_SQL,
    args: rawInsertArgs(id, m, Date.now() / 1000),
  });

  /** One round of one side: per-call latencies (ms) and the round's time. */
  const once = async (side: Side, round: number): Promise<{ calls: number[]; ms: number }> => {
    const t0 = now();
    const timed = (p: Promise<unknown>) => p.then(() => now() - t0);
    const ids = sessions[side];
    let calls: number[];
    if (side === "batch") {
      const t = await timed(
        client.batch(
          ids.map((id, i) => insert(id, pick(round, i))),
          "write",
        ),
      );
      calls = ids.map(() => t);
    } else if (side === "store") {
      calls = await Promise.all(ids.map((id, i) => timed(store.appendMessage(id, pick(round, i)))));
    } else {
      calls = [];
      for (const [i, id] of ids.entries())
        calls.push(await timed(client.execute(insert(id, pick(round, i)))));
    }
    return { calls, ms: now() - t0 };
  };

  const calls: Record<Side, number[]> = { store: [], raw: [], batch: [] };
  const total: Record<Side, number> = { store: 0, raw: 0, batch: 0 };
  for (let round = 0; round < rounds; round++) {
    // Rotate the order: each side runs first, second and third equally often.
    for (let k = 0; k < SIDES.length; k++) {
      const side = SIDES[(round + k) % SIDES.length] as Side;
      const { calls: lat, ms } = await once(side, round);
      calls[side].push(...lat);
      total[side] += ms;
    }
  }
  const metrics: Record<string, number> = {};
  const rate = (side: Side) => (rounds * SESSIONS) / (total[side] / 1000);
  for (const side of SIDES) {
    const l = latency(calls[side]);
    metrics[`server.concurrent.${side}.msgs`] = rate(side);
    metrics[`server.concurrent.${side}.p50`] = l.p50;
    metrics[`server.concurrent.${side}.p99`] = l.p99;
  }
  metrics["server.concurrent.raw.ratio"] = rate("store") / rate("raw");
  metrics["server.concurrent.batch.ratio"] = rate("store") / rate("batch");
  metrics["server.concurrent.p99.ratio"] =
    (metrics["server.concurrent.store.p99"] as number) / (metrics["server.concurrent.raw.p99"] as number);
  return { metrics, note: `${SESSIONS} sessions × ${rounds} rounds per side, orders rotated` };
}
