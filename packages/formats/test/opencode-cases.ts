/**
 * The opencode fixtures (a database built from opencode.sql, the JSON storage folder beside it)
 * imported into a real store by importFrom: sessions, rows, tool pairs and usage per model
 * exactly as opencode counted them, the broken row and file reported by name, the database
 * winning over the storage copy, a second import that stores nothing and skips every session on
 * its mark, records opencode writes meanwhile coming in on the next import (a message still being
 * written as far as it is finished), and the source untouched; and a storage folder with no
 * database (named, and as the default folder) giving the same rows, its broken session file named. Written once for vitest (Node),
 * `bun test` and `deno test`.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { SqliteDriver, Store } from "@sessiondb/core";
import { importFrom, opencode } from "../src/index.js";
import { opencodeHome, opencodeStorageHome } from "./support/opencode.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>) => void;

/** `sessiondb import --from opencode <dir>` as a library call. */
const write = (store: Store, dir: string, driver: SqliteDriver) =>
  importFrom(store, opencode, [dir], { driver });

function digest(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[p.slice(dir.length)] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

export function opencodeCases(
  describe: Suite,
  it: Test,
  runtime: string,
  open: (path: string) => Store,
  driver: () => SqliteDriver,
): void {
  describe(`opencode sessions in a store (${runtime})`, () => {
    it("stores every session whole with usage per model; a second read adds nothing; the source is untouched", async () => {
      const home = opencodeHome(driver());
      const store = open(join(home.dir, "..", `${home.dir.split(/[\\/]/).pop()}-store.db`));
      try {
        // opencode is not running: its database is closed (WAL mode, no -wal or -shm file left).
        home.writer.close();
        const before = digest(home.dir);
        const first = await write(store, home.dir, driver());
        assert.deepEqual(first.files, { total: 1, read: 1, unchanged: 0 });
        assert.deepEqual(first.sessions, { created: 3, grown: 0, unchanged: 0 });
        assert.deepEqual(
          store
            .listSessions({ source: "opencode" })
            .map((s) => s.id)
            .sort(),
          ["ses_01main", "ses_02child", "ses_03old"],
        );
        // The broken row and the cut-off file are named; the rest of their messages came in.
        assert.deepEqual(
          first.problems.map((p) => [p.file, p.table, p.row]),
          [
            [home.db, "message", "msg_01d"],
            [home.db, "message", "msg_03b"],
          ],
        );
        assert.match(first.problems[0]?.message ?? "", /^part row "prt_01d5": data is not JSON \(/);
        assert.match(first.problems[1]?.message ?? "", /^part file .*prt_03b3\.json: not JSON \(/);
        assert.deepEqual(first.unknown, { hologram: 1 });
        assert.deepEqual(first.unpriced, {});
        const main = store.getSession("ses_01main");
        assert.deepEqual(
          [
            main?.source,
            main?.title,
            main?.cwd,
            main?.model,
            main?.startedAt,
            main?.messageCount,
            main?.toolCallCount,
          ],
          [
            "opencode",
            "Widget zu breit — fix 🚀",
            "/home/ada/src/widget",
            "claude-sonnet-4-5",
            1765000000,
            14,
            4,
          ],
        );
        const { sessiondbImport, ...metadata } = main?.metadata ?? {};
        assert.deepEqual(metadata, {
          opencode: { projectID: "prj_widget", slug: "brave-otter", version: "1.0.42" },
        });
        // The import's cursor: the database and the session's mark then.
        assert.equal((sessiondbImport as { database?: string }).database, home.db);
        const child = store.getSession("ses_02child");
        assert.equal(child?.parentSessionId, "ses_01main");
        assert.equal(child?.messageCount, 2);
        const old = store.getSession("ses_03old");
        assert.deepEqual(
          [old?.title, old?.model, old?.messageCount, old?.toolCallCount],
          ["Älteres Gespräch: README", "claude-sonnet-4-20250514", 4, 1],
        );
        // Rows: 6 messages + 28 good parts + 4 tool results (database), 2 + 3 + 1 (storage).
        assert.equal(first.messages, 44);
        const usage = (id: string) =>
          store
            .getUsage(id)
            .map((u) => [
              u.model,
              u.provider,
              u.callCount,
              u.inputTokens,
              u.outputTokens,
              u.reasoningTokens,
              u.cacheReadTokens,
              u.cacheWriteTokens,
              // Float sums of recorded costs: compared to the tenth decimal.
              Math.round(u.costUsd * 1e10) / 1e10,
            ])
            .sort();
        // Two steps of one Sonnet message, counted each once (the message's own tokens are only
        // its last step's and are not added); GPT-5's step; the child's Haiku; the old message.
        assert.deepEqual(usage("ses_01main"), [
          ["claude-sonnet-4-5", "anthropic", 2, 1400, 450, 0, 11200, 900, 0.0295],
          ["gpt-5", "openai", 1, 900, 400, 250, 0, 0, 0.0046],
        ]);
        assert.deepEqual(usage("ses_02child"), [
          ["claude-haiku-4-5", "anthropic", 1, 300, 80, 0, 0, 0, 0.0007],
        ]);
        assert.deepEqual(usage("ses_03old"), [
          ["claude-sonnet-4-20250514", "anthropic", 1, 50, 20, 0, 0, 0, 0.0005],
        ]);
        // Tool pairs: the call and its result share the call id; the error is marked.
        const rows = store.getMessages("ses_01main");
        const results = rows.filter((m) => m.role === "tool");
        assert.deepEqual(
          results.map((m) => [m.toolCallId, m.toolName, m.metadata?.isError ?? false]),
          [
            ["toolu_read1", "read", false],
            ["toolu_bash1", "bash", true],
            ["toolu_task1", "task", false],
            ["call_big", "bash", false],
          ],
        );
        assert.equal(String(results[3]?.content).length, 900000);
        assert.equal(store.search("幅が広すぎる").hits[0]?.sessionId, "ses_01main");
        assert.equal(store.search("ñandú").hits[0]?.sessionId, "ses_03old");
        // The part is given back as opencode hydrates it.
        const read = store
          .getMessages("ses_01main", { includeInactive: true })
          .find((m) => m.externalId === "prt_01b04");
        assert.deepEqual(read?.original?.value, {
          type: "tool",
          callID: "toolu_read1",
          tool: "read",
          state: {
            status: "completed",
            input: { filePath: "/home/ada/src/widget/src/widget.css" },
            output: "<file>\n00001| .widget { width: 100vw; }\n</file>",
            title: "src/widget.css",
            metadata: { preview: ".widget { width: 100vw; }" },
            time: { start: 1765000003000, end: 1765000004000 },
          },
          id: "prt_01b04",
          messageID: "msg_01b",
          sessionID: "ses_01main",
        });

        const again = await write(store, home.dir, driver());
        assert.deepEqual([again.messages, again.sessions.unchanged, again.problems.length], [0, 3, 0]);
        // Every file is byte for byte as it was. SQLite itself, opening a WAL-mode database whose
        // writer is gone, leaves the two companions every WAL reader needs (an empty -wal, the
        // -shm index of read marks), as opencode's own next start would: no content of opencode's.
        const after = digest(home.dir);
        assert.equal(after["/opencode.db-wal"], createHash("sha256").update("").digest("hex"));
        delete after["/opencode.db-wal"];
        delete after["/opencode.db-shm"];
        assert.deepEqual(after, before, "the data folder is byte for byte as it was");
      } finally {
        store.close();
        rmSync(home.dir, { recursive: true, force: true });
      }
    });

    it("records opencode writes between two reads come in on the next; a message it is still writing comes in once done", async () => {
      const home = opencodeHome(driver());
      const store = open(join(home.dir, "..", `${home.dir.split(/[\\/]/).pop()}-store.db`));
      /** A read while opencode holds its database open: nothing but SQLite's -shm index changes. */
      const read = async () => {
        const files = () => {
          const { "/opencode.db-shm": _shm, ...rest } = digest(home.dir);
          return rest;
        };
        const before = files();
        const out = await write(store, home.dir, driver());
        assert.deepEqual(files(), before, "the source is byte for byte as it was");
        return out;
      };
      // Upserts, as opencode writes (a REPLACE would delete a message's parts by its foreign key).
      const upsert =
        " ON CONFLICT (id) DO UPDATE SET time_updated = excluded.time_updated, data = excluded.data";
      const insert = home.writer.prepare(`INSERT INTO message VALUES (?, 'ses_02child', ?, ?, ?)${upsert}`);
      const part = home.writer.prepare(`INSERT INTO part VALUES (?, ?, 'ses_02child', ?, ?, ?)${upsert}`);
      const assistant = (completed: boolean) =>
        JSON.stringify({
          role: "assistant",
          time: completed ? { created: 1765000161000, completed: 1765000170000 } : { created: 1765000161000 },
          parentID: "msg_02c",
          modelID: "claude-haiku-4-5",
          providerID: "anthropic",
          cost: completed ? 0.0009 : 0,
          tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
        });
      try {
        assert.equal((await read()).messages, 44);
        // opencode answers a new question in the child session; the answer is half written.
        insert.run(
          "msg_02c",
          1765000160000,
          1765000160000,
          '{"role":"user","time":{"created":1765000160000}}',
        );
        part.run(
          "prt_02c1",
          "msg_02c",
          1765000160000,
          1765000160000,
          '{"type":"text","text":"And the height?"}',
        );
        insert.run("msg_02d", 1765000161000, 1765000161000, assistant(false));
        part.run("prt_02d1", "msg_02d", 1765000161000, 1765000161000, '{"type":"step-start"}');
        part.run(
          "prt_02d2",
          "msg_02d",
          1765000162000,
          1765000162000,
          '{"type":"text","text":"The hei","time":{"start":1765000162000}}',
        );
        part.run(
          "prt_02d3",
          "msg_02d",
          1765000163000,
          1765000163000,
          '{"type":"tool","callID":"toolu_grep1","tool":"grep","state":{"status":"running","input":{"pattern":"height"},"time":{"start":1765000163000}}}',
        );
        const grown = await read();
        // Only the child session moved (the others are skipped on their marks): the question (its
        // row and its text) and the finished step start come in; the rest waits.
        assert.deepEqual([grown.messages, grown.sessions.grown, grown.sessions.unchanged], [3, 1, 2]);
        assert.equal(store.getSession("ses_02child")?.messageCount, 3);

        part.run(
          "prt_02d2",
          "msg_02d",
          1765000162000,
          1765000168000,
          '{"type":"text","text":"The height is auto.","time":{"start":1765000162000,"end":1765000168000}}',
        );
        part.run(
          "prt_02d3",
          "msg_02d",
          1765000163000,
          1765000165000,
          '{"type":"tool","callID":"toolu_grep1","tool":"grep","state":{"status":"completed","input":{"pattern":"height"},"output":"src/widget.css:3: height: auto;","title":"height","metadata":{},"time":{"start":1765000163000,"end":1765000165000}}}',
        );
        part.run(
          "prt_02d4",
          "msg_02d",
          1765000169000,
          1765000169000,
          '{"type":"step-finish","reason":"stop","cost":0.0009,"tokens":{"input":350,"output":40,"reasoning":0,"cache":{"read":0,"write":0}}}',
        );
        insert.run("msg_02d", 1765000161000, 1765000170000, assistant(true));
        const done = await read();
        // The answer's own row, its text, the call and its result, the step's usage.
        assert.equal(done.messages, 5);
        const child = store.getSession("ses_02child");
        assert.deepEqual([child?.messageCount, child?.toolCallCount], [6, 1]);
        assert.deepEqual(
          store.getUsage("ses_02child").map((u) => [u.model, u.callCount, u.inputTokens, u.outputTokens]),
          [["claude-haiku-4-5", 2, 650, 120]],
        );
        assert.deepEqual((await read()).sessions, { created: 0, grown: 0, unchanged: 3 });
      } finally {
        store.close();
        home.writer.close();
        rmSync(home.dir, { recursive: true, force: true });
      }
    });

    it("reads a storage folder with no database as the database path does; a broken session file is named", async () => {
      const full = opencodeHome(driver());
      full.writer.close();
      const old = opencodeStorageHome();
      const stores: Store[] = [];
      const store = (name: string) => {
        const s = open(join(old.home, `${name}.db`));
        stores.push(s);
        return s;
      };
      try {
        const before = digest(old.dir);
        const alone = store("alone");
        const first = await write(alone, old.dir, driver());
        assert.deepEqual(first.files, { total: 1, read: 1, unchanged: 0 });
        // ses_01main is its storage copy (one question), ses_03old the same as beside the database.
        assert.deepEqual(first.sessions, { created: 2, grown: 0, unchanged: 0 });
        const storage = join(old.dir, "storage");
        assert.deepEqual(
          first.problems.map((p) => [p.file, p.table, p.row]),
          [
            [old.brokenSession, undefined, undefined],
            [storage, "message", "msg_03b"],
          ],
        );
        assert.match(first.problems[0]?.message ?? "", /^not JSON \(/);
        assert.match(first.problems[1]?.message ?? "", /^part file .*prt_03b3\.json: not JSON \(/);
        assert.equal(first.messages, 8);
        const main = alone.getSession("ses_01main");
        assert.deepEqual(
          [
            main?.title,
            main?.messageCount,
            (main?.metadata?.sessiondbImport as { database?: string } | undefined)?.database,
          ],
          ["(this copy predates the database, which wins)", 1, storage],
        );

        // The same session read beside the database: the same session, rows and usage.
        const beside = store("beside");
        await write(beside, full.dir, driver());
        const session = (s: Store) => {
          const found = s.getSession("ses_03old");
          assert.ok(found);
          const { sessiondbImport: _i, ...kept } = found.metadata ?? {};
          return { ...found, metadata: kept };
        };
        const rows = (s: Store) =>
          s.getMessages("ses_03old", { includeInactive: true }).map(({ id: _id, ...m }) => m);
        const usage = (s: Store) => s.getUsage("ses_03old").map(({ updatedAt: _u, ...u }) => u);
        assert.deepEqual(session(alone), session(beside));
        assert.deepEqual(rows(alone), rows(beside));
        assert.equal(rows(alone).length, 6);
        assert.deepEqual(usage(alone), usage(beside));

        // Again: nothing new, every session skipped on its mark; the broken file is named again.
        const again = await write(alone, old.dir, driver());
        assert.deepEqual([again.messages, again.sessions.unchanged], [0, 2]);
        assert.deepEqual(
          again.problems.map((p) => p.file),
          [old.brokenSession],
        );
        // The default folder (~/.local/share/opencode) with storage alone is read the same way.
        const fresh = store("default");
        const byDefault = await importFrom(fresh, opencode, undefined, {
          driver: driver(),
          home: old.home,
          env: {},
        });
        assert.deepEqual([byDefault.messages, byDefault.sessions.created], [8, 2]);
        assert.deepEqual(rows(fresh), rows(alone));
        assert.deepEqual(digest(old.dir), before, "the storage folder is byte for byte as it was");
      } finally {
        for (const s of stores) s.close();
        rmSync(full.dir, { recursive: true, force: true });
        rmSync(old.home, { recursive: true, force: true });
      }
    });
  });
}
