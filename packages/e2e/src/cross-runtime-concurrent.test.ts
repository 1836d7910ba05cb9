/**
 * A Bun writer, a Node writer and a Deno writer append to one fresh store file at the same time
 * (racing to create it, too), each through its own SQLite build. Each logs an intent line before
 * and an ack line (token=id) after every append. Afterwards: every acknowledged token is stored
 * exactly once, under the id its writer was told; nothing unacknowledged or unknown is stored;
 * the store passes integrity and FTS checks; and the three runtimes agree on what is there.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { RUNTIMES, type Runtime, runChild, runOk, scratch } from "./fixtures/cross-runtime.js";

const COUNT = 300;
const BATCH: Record<Runtime, number> = { bun: 1, node: 5, deno: 3 };

function readLog(path: string): { intents: string[]; acks: Map<string, number> } {
  const intents: string[] = [];
  const acks = new Map<string, number>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.startsWith("intent ")) intents.push(...line.slice(7).split(" "));
    if (line.startsWith("ack ")) {
      for (const pair of line.slice(4).split(" ")) {
        const [token, id] = pair.split("=");
        acks.set(token as string, Number(id));
      }
    }
  }
  return { intents, acks };
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("writers on three runtimes at once", () => {
  it(`bun, node and deno each append ${COUNT} messages to one file: nothing lost, nothing duplicated`, async () => {
    const { dir, cleanup } = scratch("sessiondb-xrt-concurrent-");
    cleanups.push(cleanup);
    const db = `${dir}/state.db`;
    const log = (runtime: Runtime) => `${dir}/${runtime}.log`;

    const go = `${dir}/go`;
    const children = RUNTIMES.map((runtime) =>
      runChild(runtime, dir, [
        "append",
        db,
        runtime,
        String(COUNT),
        String(BATCH[runtime]),
        log(runtime),
        go,
      ]),
    );
    // Start barrier: all three have opened the store (racing to create it), then they write at once.
    const ready = (runtime: Runtime) =>
      existsSync(log(runtime)) && readFileSync(log(runtime), "utf8").includes("ready");
    const deadline = Date.now() + 60_000;
    while (!RUNTIMES.every(ready) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    writeFileSync(go, "");
    const results = await Promise.all(children);
    for (const [i, result] of results.entries())
      expect(result.code, `${RUNTIMES[i]}: ${result.stderr}`).toBe(0);

    const dumps = await Promise.all(
      RUNTIMES.map(async (runtime) =>
        JSON.parse(await runOk(runtime, dir, ["dump", db, '[{"query":"shared-word"}]'])),
      ),
    );
    const stored = new Map<string, number[]>();
    for (const message of dumps[0].messages as Array<{ id: number; content: string }>) {
      const token = /^appended (\S+) shared-word$/.exec(message.content)?.[1];
      expect(token, `unexpected row ${message.id}: ${message.content}`).toBeDefined();
      stored.set(token as string, [...(stored.get(token as string) ?? []), message.id]);
    }

    let acked = 0;
    for (const runtime of RUNTIMES) {
      const { intents, acks } = readLog(log(runtime));
      // Every writer finished, so every intent was acknowledged.
      expect(intents).toHaveLength(COUNT);
      expect(acks.size).toBe(COUNT);
      for (const [token, id] of acks) expect(stored.get(token), token).toEqual([id]);
      acked += acks.size;
    }
    // No phantoms: the store holds the acknowledged rows and nothing else.
    expect(stored.size).toBe(acked);
    expect(dumps[0].messages).toHaveLength(3 * COUNT);

    for (const dump of dumps) {
      expect(dump.integrity).toEqual({ ok: true, problems: [] });
      expect(dump.fts.state).toBe("ready");
      expect(dump.messages).toEqual(dumps[0].messages);
      expect(dump.search).toEqual(dumps[0].search);
    }
    // The writers really overlapped: ordered by id, the rows of the three sessions interleave.
    const order = (dumps[0].messages as Array<{ id: number; sessionId: string }>).toSorted(
      (a, b) => a.id - b.id,
    );
    const switches = order.filter((m, i) => i > 0 && m.sessionId !== order[i - 1]?.sessionId).length;
    console.info(`[cross-runtime] writer switches in id order: ${switches}`);
    expect(switches, "the three writers ran one after another, not at once").toBeGreaterThan(10);

    const sessions = dumps[0].sessions as Array<{ id: string; messageCount: number }>;
    expect(Object.fromEntries(sessions.map((s) => [s.id, s.messageCount]))).toEqual({
      "bun-writer": COUNT,
      "node-writer": COUNT,
      "deno-writer": COUNT,
    });
  });
});
