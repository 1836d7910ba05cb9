/**
 * The real Runner of @openai/agents-core over SessionDbSession, one turn per process (Node,
 * one store file): a turn with a tool call, then a fresh process that resumes
 * the session from the store; and two processes popping one session at once, which never get
 * the same item. The child scripts import the built packages (turbo builds before testing).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { openStore } from "@sessiondb/node";
import { afterAll, describe, expect, it } from "vitest";
import { SessionDbSession } from "../src/index.js";

const run = promisify(execFile);
const script = (name: string) => fileURLToPath(new URL(`./support/${name}`, import.meta.url));
const DIST = new URL("../dist/index.js", import.meta.url);
const dir = mkdtempSync(join(tmpdir(), "sessiondb-openai-agents-proc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function child(name: string, ...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, [script(name), ...args], { encoding: "utf8" });
  return JSON.parse(stdout);
}

describe.skipIf(!existsSync(DIST))("the Runner across processes (needs npm run build)", () => {
  it("runs a turn with a tool call, then resumes the session in a fresh process", async () => {
    const db = join(dir, "runner.db");
    const first = (await child("turn.mjs", db, "trip", "What is the weather in Zürich?")) as {
      finalOutput: string;
      items: unknown[];
    };
    expect(first.finalOutput).toBe("It is 12°C and foggy in Zürich.");
    const second = (await child("turn.mjs", db, "trip", "What did I ask first?")) as {
      finalOutput: string;
      items: unknown[];
    };
    // The model of the second process was given the 4 stored items and the new question.
    expect(second.finalOutput).toBe("You first asked: What is the weather in Zürich? (5 items given)");
    expect(second.items.slice(0, first.items.length)).toEqual(first.items);

    const store = openStore(db);
    try {
      const rows = store.getMessages("trip");
      expect(rows.map((r) => r.role)).toEqual([
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
      ]);
      expect(rows[1]?.toolCalls).toEqual([
        { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Zürich"}' } },
      ]);
      expect(rows[2]).toMatchObject({
        toolCallId: "call_1",
        toolName: "weather",
        content: "12°C and foggy in Zürich",
      });
      expect(store.getSession("trip")).toMatchObject({
        source: "openai-agents",
        messageCount: 6,
        toolCallCount: 1,
      });
      expect(await new SessionDbSession({ store, sessionId: "trip" }).getItems()).toEqual(second.items);
      expect(store.search("foggy", { sessionId: "trip" }).hits.length).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  });

  it("two processes popping one session never get the same item", async () => {
    const db = join(dir, "pop.db");
    const store = openStore(db);
    const items = Array.from({ length: 300 }, (_, i) => ({ role: "user" as const, content: `item ${i}` }));
    try {
      await new SessionDbSession({ store, sessionId: "shared" }).addItems(items);
    } finally {
      store.close();
    }
    const startAt = String(Date.now() + 2_000);
    const [a, b] = (await Promise.all([
      child("pop.mjs", db, "shared", startAt),
      child("pop.mjs", db, "shared", startAt),
    ])) as {
      content: string;
    }[][];
    const popped = [...(a ?? []), ...(b ?? [])].map((i) => i.content);
    expect(popped).toHaveLength(300);
    expect(new Set(popped).size).toBe(300);
    // Both popped (they started together), so the two really raced for the same rows.
    expect(a?.length).toBeGreaterThan(0);
    expect(b?.length).toBeGreaterThan(0);
    // Each process pops newest first: its own list runs backwards through the items.
    for (const list of [a, b]) {
      const numbers = (list ?? []).map((i) => Number(i.content.slice(5)));
      expect(numbers).toEqual([...numbers].sort((x, y) => y - x));
    }
  });
});
