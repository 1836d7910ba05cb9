/**
 * importFrom into an AsyncStore (`@sessiondb/libsql` on a real sqld) gives what it gives into a
 * sync store: the Claude Code and Codex fixtures imported into both, then a Codex file appended
 * to, then everything imported again. Every result (files, sessions, rows, unknown types,
 * problems, partial files) and everything stored (each session with its parent, title, model and
 * counts, every row, usage per model) is the same on both, and the last run adds nothing.
 * Written once for vitest, bun test and deno test.
 */
import assert from "node:assert/strict";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AsyncStore, Store } from "@sessiondb/core";
import { claudeCode, codex, type ImportResult, importFrom } from "../src/index.js";
import { SUBAGENT } from "./codex-store-cases.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>) => void;

const fixtures = (format: string) => fileURLToPath(new URL(`./fixtures/${format}`, import.meta.url));

/** Everything a store holds of the sessions of `source`, through either kind of store. */
async function contents(store: Store | AsyncStore, source: string) {
  const sessions = await store.listSessions({ source, limit: 1000, includeArchived: true });
  const out = [];
  for (const s of [...sessions].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const rows = await store.getMessages(s.id, { includeInactive: true });
    const usage = await store.getUsage(s.id);
    out.push({
      session: [s.id, s.parentSessionId, s.title, s.model, s.cwd, s.messageCount],
      rows: rows.map((m) => [m.externalId, m.role, m.content, m.toolName, m.toolCallId, m.active]),
      usage: usage.map((u) => [u.model, u.inputTokens, u.outputTokens, u.cacheReadTokens, u.callCount]),
    });
  }
  return out;
}

/** A result with the run's folder taken out of its paths, so two folders' runs compare. */
function portable(result: ImportResult, dir: string): ImportResult {
  return {
    ...result,
    problems: result.problems.map((p) => ({ ...p, file: p.file.replace(dir, "<home>") })),
  };
}

export function importAsyncCases(
  describe: Suite,
  it: Test,
  runtime: string,
  openSync: (path: string) => Store,
  openAsync: () => Promise<{ store: AsyncStore; close(): Promise<void> }>,
): void {
  describe(`importFrom into an async store on sqld (${runtime})`, () => {
    it("stores what a sync store stores, with the same counts; a re-import adds nothing", async () => {
      const homes = [0, 1].map(() => {
        const dir = mkdtempSync(join(tmpdir(), "sessiondb-import-async-"));
        for (const [format, under] of [
          ["claude-code", ".claude/projects"],
          ["codex", ".codex/sessions"],
        ] as const) {
          mkdirSync(join(dir, under), { recursive: true });
          cpSync(fixtures(format), join(dir, under), { recursive: true });
        }
        return dir;
      });
      const [syncHome, asyncHome] = homes as [string, string];
      const sync = openSync(join(syncHome, "s.db"));
      const remote = await openAsync();
      try {
        const runs: { sync: ImportResult[]; async: ImportResult[] } = { sync: [], async: [] };
        const importAll = async () => {
          for (const format of [claudeCode, codex]) {
            runs.sync.push(portable(await importFrom(sync, format, undefined, { home: syncHome }), syncHome));
            runs.async.push(
              portable(await importFrom(remote.store, format, undefined, { home: asyncHome }), asyncHome),
            );
          }
        };
        await importAll();
        assert.equal(runs.async[0]?.messages, 23 + 4, "Claude Code: the fixtures' rows");
        assert.equal(runs.async[1]?.messages, 28 + 5, "Codex: the fixtures' rows");
        // A line another writer adds to a rollout (the subagent's, which ends in a newline): read from where the first run stopped.
        for (const home of homes)
          appendFileSync(
            join(home, ".codex/sessions", SUBAGENT),
            `${JSON.stringify({ timestamp: "2026-03-14T09:40:00.000Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "one more" }] } })}\n`,
          );
        await importAll();
        assert.equal(runs.async[3]?.files.resumed, 1);
        assert.equal(runs.async[3]?.messages, 1);
        await importAll();
        for (const r of runs.async.slice(4)) {
          assert.equal(r.messages, 0, "the last run adds nothing");
          assert.equal(r.files.unchanged, r.files.total);
        }
        assert.deepEqual(runs.async, runs.sync, "the same results run by run");
        for (const source of ["claude-code", "codex"])
          assert.deepEqual(await contents(remote.store, source), await contents(sync, source));
      } finally {
        sync.close();
        await remote.close();
        for (const home of homes) rmSync(home, { recursive: true, force: true });
      }
    });
  });
}
