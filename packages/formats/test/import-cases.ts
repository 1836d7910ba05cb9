/**
 * importFrom over real files and a real store: the Codex fixtures copied into a folder laid out
 * as ~/.codex/sessions, imported, imported again (nothing added, files skipped on a stat), a file
 * grown by another writer while a half-written line waits, a subagent whose parent's file comes
 * later, and the source files left as they were. Written once for vitest, bun test and deno test.
 */
import assert from "node:assert/strict";
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Store } from "@sessiondb/core";
import { codex, importFrom } from "../src/index.js";
import { MAIN, SUBAGENT } from "./codex-store-cases.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>) => void;

const FIXTURES = fileURLToPath(new URL("./fixtures/codex", import.meta.url));
const PARENT_ID = "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const CHILD_ID = "0195a1b2-ffff-7e5f-8a9b-0c1d2e3f4a5c";

/** A home folder holding a copy of the Codex fixtures where Codex keeps its sessions. */
function home(): { home: string; root: string } {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-import-"));
  const root = join(dir, ".codex", "sessions");
  mkdirSync(root, { recursive: true });
  cpSync(FIXTURES, root, { recursive: true });
  return { home: dir, root };
}

const line = (at: string, type: string, payload: unknown) =>
  `${JSON.stringify({ timestamp: at, type, payload })}\n`;
const said = (role: string, text: string) => ({
  type: "message",
  role,
  content: [{ type: role === "user" ? "input_text" : "output_text", text }],
});

export function importCases(describe: Suite, it: Test, runtime: string, open: (path: string) => Store): void {
  describe(`importFrom (${runtime})`, () => {
    it("imports a Codex folder with exact counts; a second run reads no file and adds nothing", async () => {
      const { home: dir, root } = home();
      const store = open(join(dir, "s.db"));
      try {
        const before = readFileSync(join(root, MAIN));
        const mtime = statSync(join(root, MAIN)).mtimeMs;
        const seen: number[] = [];
        const first = await importFrom(store, codex, undefined, {
          home: dir,
          onProgress: (p) => seen.push(p.files),
        });
        assert.deepEqual(first.files, { total: 2, read: 2, unchanged: 0, resumed: 0 });
        assert.deepEqual(first.sessions, { created: 2, grown: 0, linked: 0 });
        assert.equal(first.messages, 28 + 5);
        assert.equal(first.partial, 1, "the half-written last line waits for the next run");
        assert.deepEqual(
          first.problems.map((p) => [p.file, p.line]),
          [[join(root, MAIN), 28]],
        );
        assert.match(first.problems[0]?.message ?? "", /^not JSON/);
        assert.deepEqual(first.unknown, { ghost_snapshot: 1, world_state: 1 });
        assert.equal(seen.at(-1), 2);
        assert.equal(store.messageCount(PARENT_ID), 28);
        assert.equal(store.getSession(PARENT_ID)?.messageCount, 13);
        assert.equal(store.getSession(CHILD_ID)?.parentSessionId, PARENT_ID);
        assert.equal(store.getSession(PARENT_ID)?.title, "Fix East Asian width");
        assert.equal(store.getSession(PARENT_ID)?.source, "codex");
        assert.equal(store.getSession(PARENT_ID)?.model, "gpt-5-codex");
        // Codex records no cost: each usage row's is estimated from the price table, and says so
        // (in millionths of a dollar).
        const usage = store
          .getUsage(PARENT_ID)
          .map((u) => [u.model, u.billingMode, u.inputTokens, u.outputTokens, Math.round(u.costUsd * 1e6)])
          .sort();
        assert.deepEqual(usage, [
          ["gpt-5", "estimated", 700, 200, 2_975], // (700 × 1.25 + 200 × 10 + 800 × 0.125) / 1e6
          ["gpt-5-codex", "estimated", 1300, 300, 4_775], // (1300 × 1.25 + 300 × 10 + 1200 × 0.125) / 1e6
        ]);
        assert.deepEqual(first.unpriced, {});

        const again = await importFrom(store, codex, undefined, { home: dir });
        assert.deepEqual(again.files, { total: 2, read: 0, unchanged: 2, resumed: 0 });
        assert.equal(again.messages, 0);
        assert.deepEqual(again.sessions, { created: 0, grown: 0, linked: 0 });
        assert.equal(store.getMessages(PARENT_ID, { includeInactive: true }).length, 28);
        assert.deepEqual(readFileSync(join(root, MAIN)), before, "the source is only read");
        assert.equal(statSync(join(root, MAIN)).mtimeMs, mtime);
      } finally {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("picks up what another writer appended, the half-written line once it is whole, nothing twice", async () => {
      const { home: dir, root } = home();
      const file = join(
        root,
        "2026/04/01/rollout-2026-04-01T10-00-00-0195a1b2-aaaa-7e5f-8a9b-0c1d2e3f4a5d.jsonl",
      );
      mkdirSync(dirname(file), { recursive: true });
      const id = "0195a1b2-aaaa-7e5f-8a9b-0c1d2e3f4a5d";
      const meta = line("2026-04-01T10:00:00.000Z", "session_meta", {
        id,
        timestamp: "2026-04-01T10:00:00.000Z",
        cwd: "/srv/ünï",
      });
      const ask = line("2026-04-01T10:00:01.000Z", "response_item", said("user", "ping über alles"));
      const answer = line("2026-04-01T10:00:02.000Z", "response_item", said("assistant", "pong ✓"));
      writeFileSync(file, meta + ask + answer.slice(0, 30));
      const store = open(join(dir, "s.db"));
      try {
        const first = await importFrom(store, codex, [file]);
        assert.equal(first.messages, 2);
        assert.equal(first.partial, 1);
        assert.equal(store.getSession(id)?.messageCount, 1);
        appendFileSync(
          file,
          answer.slice(30) + line("2026-04-01T10:00:03.000Z", "response_item", said("user", "again")),
        );
        const second = await importFrom(store, codex, [file]);
        assert.equal(second.messages, 2);
        assert.equal(second.partial, 0);
        assert.deepEqual(second.sessions, { created: 0, grown: 1, linked: 0 });
        assert.deepEqual(
          store.getMessages(id).map((m) => m.content),
          ["ping über alles", "pong ✓", "again"],
        );
        assert.equal(store.search("pong").hits.length, 1);
      } finally {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("links a child imported in an earlier run once its parent's file comes", async () => {
      const { home: dir, root } = home();
      // The parent's file is not there yet on the first run: only the subagent's is.
      const away = join(dir, "away.jsonl");
      renameSync(join(root, MAIN), away);
      const store = open(join(dir, "s.db"));
      try {
        const first = await importFrom(store, codex, undefined, { home: dir });
        assert.deepEqual(first.sessions, { created: 1, grown: 0, linked: 0 });
        assert.match(first.problems[0]?.message ?? "", /imported without a parent/);
        assert.equal(store.getSession(CHILD_ID)?.parentSessionId, null);
        const alone = await importFrom(store, codex, undefined, { home: dir });
        assert.deepEqual(alone.sessions, { created: 0, grown: 0, linked: 0 }, "still no parent to link");
        assert.deepEqual(alone.problems, [], "the missing parent is reported once");

        renameSync(away, join(root, MAIN));
        const second = await importFrom(store, codex, undefined, { home: dir });
        assert.deepEqual(second.files, { total: 2, read: 1, unchanged: 1, resumed: 0 });
        assert.deepEqual(second.sessions, { created: 1, grown: 0, linked: 1 });
        assert.equal(store.getSession(CHILD_ID)?.parentSessionId, PARENT_ID);
        assert.equal(store.messageCount(CHILD_ID), 5, "the child's rows are as they were");
        const third = await importFrom(store, codex, undefined, { home: dir });
        assert.deepEqual(third.sessions, { created: 0, grown: 0, linked: 0 });
      } finally {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("leaves a child unlinked when its parent descends from it, and says so", async () => {
      const dir = mkdtempSync(join(tmpdir(), "sessiondb-import-"));
      const [a, b] = ["0195a1b2-aaaa-7e5f-8a9b-0c1d2e3f4a61", "0195a1b2-bbbb-7e5f-8a9b-0c1d2e3f4a62"];
      // Each names the other as what it was forked from: no order of the two can link both.
      const write = (id: string, parent: string) => {
        const file = join(dir, "sessions", "2026/04/02", `rollout-2026-04-02T10-00-00-${id}.jsonl`);
        mkdirSync(dirname(file), { recursive: true });
        const at = "2026-04-02T10:00:00.000Z";
        writeFileSync(file, line(at, "session_meta", { id, timestamp: at, forked_from_id: parent }));
      };
      write(a, b);
      const store = open(join(dir, "s.db"));
      try {
        await importFrom(store, codex, [join(dir, "sessions")]);
        write(b, a);
        const second = await importFrom(store, codex, [join(dir, "sessions")]);
        assert.equal(store.getSession(b)?.parentSessionId, a, "b's parent a was in the store");
        assert.equal(store.getSession(a)?.parentSessionId, null);
        assert.equal(second.sessions.linked, 0);
        assert.match(second.problems[0]?.message ?? "", /descends from this session/);
      } finally {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("links a subagent whose parent's file is read after it", async () => {
      const { home: dir, root } = home();
      // The child's file moved to a day before its parent's: the walk meets it first.
      const early = join(root, "2026/03/13", SUBAGENT.split("/").at(-1) as string);
      mkdirSync(dirname(early), { recursive: true });
      renameSync(join(root, SUBAGENT), early);
      const store = open(join(dir, "s.db"));
      try {
        const result = await importFrom(store, codex, undefined, { home: dir });
        assert.deepEqual(result.files, { total: 2, read: 2, unchanged: 0, resumed: 0 });
        assert.equal(store.getSession(CHILD_ID)?.parentSessionId, PARENT_ID);
        assert.equal(store.messageCount(CHILD_ID), 5);
      } finally {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
