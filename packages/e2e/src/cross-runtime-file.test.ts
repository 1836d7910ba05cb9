/**
 * One store file, three runtimes: a store created and written by one runtime is opened,
 * appended to and searched by the other two (each through its own SQLite build), in every
 * creator order; then each runtime reads the whole store back and the three answers agree row
 * for row, search results included.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type Runtime, runOk, scratch } from "./fixtures/cross-runtime.js";

const QUERIES = [
  { query: "zebra" },
  { query: "my-app.config.ts" },
  { query: "配置文件" },
  { query: "needle", options: { roles: ["tool"] } },
  { query: "was here", options: { sort: "oldest" } },
  { query: "agent", options: { sources: ["deno"] } },
];

interface Dump {
  runtime: Runtime;
  driver: string;
  sessions: Array<{ id: string; messageCount: number }>;
  messages: Array<{ id: number; sessionId: string; content: unknown }>;
  usage: unknown[];
  search: Array<{ query: string; result: { route: string; hits: Array<{ messageId: number }> } }>;
  integrity: { ok: boolean; problems: string[] };
  fts: { state: string };
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const ORDERS: Runtime[][] = [
  ["bun", "node", "deno"],
  ["deno", "bun", "node"],
  ["node", "deno", "bun"],
];

describe("a store moves between runtimes", () => {
  for (const order of ORDERS) {
    it(`created by ${order[0]}, then written by ${order[1]} and ${order[2]}: all three read the same rows`, async () => {
      const { dir, cleanup } = scratch("sessiondb-xrt-file-");
      cleanups.push(cleanup);
      const db = `${dir}/state.db`;
      // One after another: each opens the file the previous one left, appends and searches.
      const engines = [];
      for (const runtime of order)
        engines.push(JSON.parse(await runOk(runtime, dir, ["script", db, runtime])));
      expect(engines.map((e) => e.runtime)).toEqual(order);

      const dumps: Dump[] = await Promise.all(
        order.map(async (runtime) =>
          JSON.parse(await runOk(runtime, dir, ["dump", db, JSON.stringify(QUERIES)])),
        ),
      );
      const [first, ...rest] = dumps as [Dump, ...Dump[]];

      // What was written is all there: 6 messages per runtime, plus one visit per earlier session.
      expect(first.sessions.map((s) => s.id).sort()).toEqual(order.map((r) => `${r}-session`).sort());
      expect(first.messages).toHaveLength(6 * 3 + 2 + 1);
      expect(first.integrity).toEqual({ ok: true, problems: [] });
      expect(first.fts.state).toBe("ready");
      const routes = Object.fromEntries(first.search.map((s) => [s.query, s.result.route]));
      expect(routes).toEqual({
        zebra: "fts",
        "my-app.config.ts": "fts",
        配置文件: "trigram",
        needle: "like",
        "was here": "fts",
        agent: "fts",
      });
      const hits = Object.fromEntries(first.search.map((s) => [s.query, s.result.hits.length]));
      expect(hits).toEqual({
        zebra: 3,
        "my-app.config.ts": 3,
        配置文件: 3,
        needle: 3,
        "was here": 3,
        agent: 1,
      });

      // Row for row, field for field, search hit for search hit: every runtime reads the same store.
      const comparable = ({ runtime: _r, driver: _d, ...rest }: Dump) => rest;
      for (const other of rest) expect(comparable(other)).toEqual(comparable(first));
      expect(new Set(dumps.map((d) => d.driver))).toEqual(
        new Set(["bun:sqlite", "better-sqlite3", "node:sqlite"]),
      );
    });
  }
});
