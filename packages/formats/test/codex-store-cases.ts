/**
 * The Codex fixtures' rows in a real store, written the plain way an importer would (the session
 * from the lines' facts, the rows in one appendMessages): the counts the CLI shows, usage per
 * model, search over non-ASCII text, the originals read back, and a second write that stores
 * nothing. Written once for vitest (Node), `bun test` and `deno test`; each entry passes its
 * runner's describe/it and how to open a store on a file.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CreateSessionInput, MessageInput, Store } from "@sessiondb/core";
import { codex, type SessionFacts } from "../src/index.js";
import { readJsonLines } from "./support/lines.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>) => void;

export const MAIN = "2026/03/14/rollout-2026-03-14T09-30-00-0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl";
export const SUBAGENT = "2026/03/15/rollout-2026-03-15T08-00-00-0195a1b2-ffff-7e5f-8a9b-0c1d2e3f4a5c.jsonl";
export const fixture = (path: string) => new URL(`./fixtures/codex/${path}`, import.meta.url);

/** A fixture's session facts (the first of each kept) and rows, through one fresh mapper. */
export function loadCodex(path: string): { facts: SessionFacts; rows: MessageInput[] } {
  const mapper = codex.mapper(path);
  const facts: SessionFacts = {};
  const rows: MessageInput[] = [];
  for (const line of readJsonLines(fixture(path)).lines) {
    const mapped = mapper.map(line.value, line.position);
    for (const [k, v] of Object.entries(mapped.session ?? {}))
      if (!(k in facts)) Object.assign(facts, { [k]: v });
    rows.push(...mapped.messages);
  }
  return { facts, rows };
}

function write(store: Store, path: string): { id: string; ids: number[] } {
  const { facts, rows } = loadCodex(path);
  const { ended: _ended, ...session } = facts;
  store.createSession(session as CreateSessionInput);
  const id = facts.id as string;
  return { id, ids: store.appendMessages(id, rows) };
}

export function codexStoreCases(
  describe: Suite,
  it: Test,
  runtime: string,
  open: (path: string) => Store,
): void {
  describe(`codex rows in a store (${runtime})`, () => {
    it("stores the sessions with their counts and usage; a second write adds nothing", async () => {
      const dir = mkdtempSync(join(tmpdir(), "sessiondb-codex-"));
      const store = open(join(dir, "codex.db"));
      try {
        const parent = write(store, MAIN);
        assert.deepEqual(write(store, MAIN), parent, "the second write answers the stored ids");
        const child = write(store, SUBAGENT);
        assert.equal(store.messageCount(parent.id), 28);
        assert.equal(store.messageCount(child.id), 5);
        const s = store.getSession(parent.id);
        assert.deepEqual(
          [s?.source, s?.model, s?.title, s?.cwd, s?.messageCount, s?.toolCallCount],
          ["codex", "gpt-5-codex", "Fix East Asian width", "/home/rin/projects/tally", 13, 4],
        );
        assert.equal(store.getSession(child.id)?.parentSessionId, parent.id);
        assert.equal(store.getMessages(parent.id).length, 13);
        const usage = store
          .getUsage(parent.id)
          .map((u) => [
            u.model,
            u.provider,
            u.callCount,
            u.inputTokens,
            u.cacheReadTokens,
            u.outputTokens,
            u.reasoningTokens,
          ])
          .sort();
        assert.deepEqual(usage, [
          ["gpt-5", "openai", 1, 700, 800, 200, 10],
          ["gpt-5-codex", "openai", 2, 1300, 1200, 300, 90],
        ]);
        const found = store.search("日本語");
        assert.ok(found.hits.some((h) => h.sessionId === parent.id && h.role === "user"));
        const back = store.getMessages(parent.id, { includeInactive: true });
        assert.deepEqual(back[0]?.original, {
          format: "codex",
          value: readJsonLines(fixture(MAIN)).lines[0]?.value,
        });
        assert.deepEqual(
          back.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.toolName]),
          [
            ["call_shell_1", "shell"],
            ["call_patch_2", "apply_patch"],
          ],
        );
      } finally {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
