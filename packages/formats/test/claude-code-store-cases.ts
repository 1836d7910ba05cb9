/**
 * The Claude Code fixtures' rows in a real store, written the plain way an importer would (the
 * session from the lines' facts, the rows in one appendMessages): the counts the CLI shows,
 * usage per model counted once per response, search over non-ASCII and astral text, the lines
 * read back as their originals, a subagent's child session, and a second write that stores
 * nothing. Written once for vitest (Node), `bun test` and `deno test`.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CreateSessionInput, MessageInput, Store } from "@sessiondb/core";
import { claudeCode, type SessionFacts } from "../src/index.js";
import { readJsonLines } from "./support/lines.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>) => void;

const SESSION = "3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f";
const MAIN = `-home-ada-src-widget/${SESSION}.jsonl`;
const SUBAGENT = `-home-ada-src-widget/${SESSION}/subagents/agent-a1b2c3d.jsonl`;
const fixture = (path: string) => new URL(`./fixtures/claude-code/${path}`, import.meta.url);

/** A fixture's session facts (each the first given; the title the last) and rows. */
function load(path: string): { facts: SessionFacts; rows: MessageInput[] } {
  const mapper = claudeCode.mapper(path);
  const facts: SessionFacts = {};
  const rows: MessageInput[] = [];
  for (const line of readJsonLines(fixture(path)).lines) {
    const mapped = mapper.map(line.value, line.position);
    for (const [k, v] of Object.entries(mapped.session ?? {}))
      if (k === "title" || !(k in facts)) Object.assign(facts, { [k]: v });
    rows.push(...mapped.messages);
  }
  return { facts, rows };
}

function write(store: Store, path: string): { id: string; ids: number[] } {
  const { facts, rows } = load(path);
  const { ended: _ended, ...session } = facts;
  store.createSession(session as CreateSessionInput);
  const id = facts.id as string;
  return { id, ids: store.appendMessages(id, rows) };
}

export function claudeCodeStoreCases(
  describe: Suite,
  it: Test,
  runtime: string,
  open: (path: string) => Store,
): void {
  describe(`claude code rows in a store (${runtime})`, () => {
    it("stores the sessions with their counts and usage; a second write adds nothing", async () => {
      const dir = mkdtempSync(join(tmpdir(), "sessiondb-claude-code-"));
      const store = open(join(dir, "claude.db"));
      try {
        const parent = write(store, MAIN);
        assert.deepEqual(write(store, MAIN), parent, "the second write answers the stored ids");
        const child = write(store, SUBAGENT);
        assert.equal(store.messageCount(parent.id), 23);
        const s = store.getSession(parent.id);
        assert.deepEqual(
          [s?.source, s?.model, s?.title, s?.cwd, s?.messageCount, s?.toolCallCount],
          ["claude-code", "claude-opus-4-5-20251101", "Width fix (ada)", "/home/ada/src/widget", 13, 3],
        );
        assert.deepEqual(s?.metadata, { claudeCode: { gitBranch: "fix/width", version: "2.1.3" } });
        assert.equal(store.getSession(child.id)?.parentSessionId, parent.id);
        assert.equal(store.getSession(child.id)?.messageCount, 4);
        const usage = (id: string) =>
          store
            .getUsage(id)
            .map((u) => [
              u.model,
              u.provider,
              u.callCount,
              u.inputTokens,
              u.outputTokens,
              u.cacheWriteTokens,
              u.cacheReadTokens,
            ])
            .sort();
        assert.deepEqual(usage(parent.id), [
          ["claude-opus-4-5-20251101", "anthropic", 2, 15, 280, 1200, 11000],
          ["claude-sonnet-4-5-20250929", "anthropic", 1, 3, 50, 0, 7000],
        ]);
        assert.deepEqual(usage(child.id), [["claude-haiku-4-5-20251001", "anthropic", 2, 60, 42, 0, 0]]);
        assert.ok(store.search("日本語").hits.some((h) => h.sessionId === parent.id && h.role === "user"));
        const back = store.getMessages(parent.id, { includeInactive: true });
        const lines = readJsonLines(fixture(MAIN)).lines.map((l) => l.value);
        assert.deepEqual(
          back.flatMap((m) => (m.original === null ? [] : [m.original.value])),
          lines,
          "every line given back once, in order",
        );
        assert.deepEqual(
          back.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.toolName]),
          [
            ["toolu_01Bash", "Bash"],
            ["toolu_02Read", "Read"],
            ["toolu_03Grep", "Grep"],
          ],
        );
      } finally {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
