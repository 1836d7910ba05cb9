/**
 * The Codex fixtures' rows in a real store (better-sqlite3 on a temp file), written the plain way
 * an importer would (session from the facts, rows in one appendMessages): the counts the CLI
 * shows, usage per model, and a second write that stores nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CreateSessionInput, MessageInput } from "@sessiondb/core";
import { openStore } from "@sessiondb/node";
import { afterAll, describe, expect, it } from "vitest";
import { codex, type SessionFacts } from "../src/index.js";
import { readJsonLines } from "./support/lines.js";

const MAIN = "2026/03/14/rollout-2026-03-14T09-30-00-0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl";
const dir = mkdtempSync(join(tmpdir(), "sessiondb-codex-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(path: string): { facts: SessionFacts; rows: MessageInput[] } {
  const mapper = codex.mapper(path);
  const facts: SessionFacts = {};
  const rows: MessageInput[] = [];
  for (const line of readJsonLines(new URL(`./fixtures/codex/${path}`, import.meta.url)).lines) {
    const mapped = mapper.map(line.value, line.position);
    for (const [k, v] of Object.entries(mapped.session ?? {}))
      if (!(k in facts)) Object.assign(facts, { [k]: v });
    rows.push(...mapped.messages);
  }
  return { facts, rows };
}

describe("codex rows in a store", () => {
  it("stores the session with its counts and usage; a re-import adds nothing", () => {
    const store = openStore(join(dir, "codex.db"), { driver: "better-sqlite3" });
    try {
      const { facts, rows } = load(MAIN);
      const { ended: _ended, ...session } = facts;
      store.createSession(session as CreateSessionInput);
      const id = facts.id as string;
      const first = store.appendMessages(id, rows);
      expect(store.appendMessages(id, rows)).toEqual(first);
      expect(store.messageCount(id)).toBe(28);
      const s = store.getSession(id);
      expect(s).toMatchObject({
        source: "codex",
        model: "gpt-5-codex",
        title: "Fix East Asian width",
        messageCount: 13,
        toolCallCount: 4,
      });
      expect(store.getMessages(id)).toHaveLength(13);
      expect(store.getMessages(id, { includeInactive: true })).toHaveLength(28);
      const usage = store
        .getUsage(id)
        .map((u) => [
          u.model,
          u.callCount,
          u.inputTokens,
          u.cacheReadTokens,
          u.outputTokens,
          u.reasoningTokens,
        ]);
      expect(usage.sort()).toEqual([
        ["gpt-5", 1, 700, 800, 200, 10],
        ["gpt-5-codex", 2, 1300, 1200, 300, 90],
      ]);
      expect(store.search("日本語").hits.length).toBeGreaterThan(0);
      const back = store.getMessages(id, { includeInactive: true });
      expect(back[0]?.original).toEqual({
        format: "codex",
        value: readJsonLines(new URL(`./fixtures/codex/${MAIN}`, import.meta.url)).lines[0]?.value,
      });
    } finally {
      store.close();
    }
  });
});
