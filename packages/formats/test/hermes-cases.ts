/**
 * importFrom with the Hermes format over a real state.db (fixtures/hermes/state.sql) and a real
 * store: exact counts, usage per model as Hermes counted it, a re-import that adds nothing and
 * reads no record, rows another connection adds between two imports, the source file left
 * byte for byte, and databases that cannot be read. Written once for vitest, bun test and deno.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InvalidInputError, type SqliteDriver, type Store } from "@sessiondb/core";
import { hermes, importFrom } from "../src/index.js";
import { CHILD, hermesHome, MAIN, write } from "./support/hermes.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>) => void;

export function hermesCases(
  describe: Suite,
  it: Test,
  runtime: string,
  open: (path: string) => Store,
  driver: SqliteDriver,
): void {
  describe(`importFrom hermes (${runtime})`, () => {
    it("imports a state.db with exact counts; again, nothing is read or added", async () => {
      const { home, database } = hermesHome(driver);
      const store = open(join(home, "s.db"));
      try {
        const before = readFileSync(database);
        const first = await importFrom(store, hermes, undefined, { home, driver, env: {} });
        assert.deepEqual(first.files, { total: 1, read: 1, unchanged: 0 });
        assert.deepEqual(first.sessions, { created: 2, grown: 0, unchanged: 0 });
        // Main: its session row, 11 messages, 2 usage rows; child: session row, 2 messages, 1 usage.
        assert.equal(first.messages, 14 + 4);
        assert.deepEqual(first.unknown, { session_meta: 1 });
        assert.deepEqual(
          first.problems.map((p) => [p.file, p.table, p.row]),
          [[database, "messages", 9]],
        );
        assert.match(first.problems[0]?.message ?? "", /^tool_calls is not JSON/);
        assert.deepEqual(first.unpriced, { "hermes-4-405b": 1 });

        const main = store.getSession(MAIN);
        assert.equal(main?.source, "hermes");
        assert.equal(main?.title, "Fix the ünïcode width bug 表");
        assert.equal(main?.model, "claude-sonnet-4-5");
        assert.equal(main?.cwd, "/home/ana/ünïcode-table");
        assert.equal(main?.startedAt, 1772360100);
        assert.equal(main?.endedAt, 1772361000.5);
        assert.equal(main?.endReason, "user_exit");
        assert.deepEqual(main?.modelConfig, { max_tokens: 8192, reasoning_effort: "medium" });
        const facts = main?.metadata?.hermes as { [key: string]: unknown };
        assert.equal(facts.source, "cli");
        assert.equal(facts.git_branch, "fix/east-asian-width");
        // Active: user, 4 assistant, 3 tool results, system; inactive: the session row, the
        // unknown role, the rewound question, the usage rows.
        assert.equal(main?.messageCount, 9);
        assert.equal(store.messageCount(MAIN), 14);
        assert.equal(main?.toolCallCount, 3);

        const rows = store.getMessages(MAIN);
        assert.deepEqual(
          rows.map((m) => m.role),
          ["user", "assistant", "tool", "assistant", "tool", "tool", "system", "assistant", "assistant"],
        );
        const calls = rows.flatMap((m) => (m.toolCalls ?? []) as { id: string }[]).map((c) => c.id);
        const results = rows.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.toolName]);
        assert.deepEqual(calls, ["call_1", "call_2", "call_3"]);
        assert.deepEqual(results, [
          ["call_1", "read_file"],
          ["call_2", "terminal"],
          ["call_3", "delegate_task"],
        ]);
        assert.equal(rows[1]?.reasoning, "Wide characters take two columns; check how width is counted.");
        assert.equal(rows[1]?.finishReason, "tool_calls");
        assert.equal(rows[0]?.content, "Why does the table misalign with 日本語 text? 🤔");
        assert.equal(rows[0]?.tokenCount, 18);
        assert.equal(rows[0]?.timestamp, 1772360110);
        assert.equal(
          rows[4]?.content,
          "PASS test/width.test.ts ✓ 東アジアの幅\n".repeat(20000),
          "the huge tool output whole",
        );
        assert.equal(rows[8]?.toolCalls, null, "the calls that were not JSON are left out");
        assert.equal(rows[8]?.externalId, "message:9");
        const original = rows[8]?.original as { format: string; value: { tool_calls: string } };
        assert.equal(original.format, "hermes");
        assert.match(original.value.tool_calls, /^\[\{"id": "call_9"/, "the row kept as it was");

        const all = store.getMessages(MAIN, { includeInactive: true });
        assert.equal(all[0]?.content, "You are Hermes, a helpful agent. Answer with care.");
        assert.equal(all[0]?.externalId, "session");
        const odd = all.find((m) => m.externalId === "message:10");
        assert.deepEqual(odd?.original?.value, {
          id: 10,
          session_id: MAIN,
          role: "session_meta",
          content: '{"note": "checkpoint"}',
          tool_call_id: null,
          tool_calls: null,
          tool_name: null,
          timestamp: 1772360800,
          token_count: null,
          finish_reason: null,
          reasoning: null,
          reasoning_details: null,
          active: 1,
          display_identity: { base64: "AP8Q" },
        });
        assert.equal(all.find((m) => m.externalId === "message:11")?.active, false);

        // Usage per model as Hermes counted it; a cost only where none was recorded.
        const usage = (id: string) =>
          store
            .getUsage(id)
            .map((u) => [
              u.model,
              u.provider,
              u.task,
              u.billingMode,
              u.inputTokens,
              u.outputTokens,
              u.cacheReadTokens,
              u.cacheWriteTokens,
              u.reasoningTokens,
              Math.round(u.costUsd * 1e6),
            ])
            .sort();
        assert.deepEqual(usage(MAIN), [
          // (20000 × 3 + 1200 × 15 + 12000 × 0.3 + 800 × 3.75) / 1e6
          ["claude-sonnet-4-5", "anthropic", "", "estimated", 20000, 1200, 12000, 800, 0, 84_600],
          ["hermes-4-405b", "nous", "compression", "", 300, 150, 0, 0, 0, 0],
        ]);
        assert.deepEqual(usage(CHILD), [["gpt-5-mini", "openai", "", "", 5000, 700, 0, 0, 300, 2_650]]);

        const child = store.getSession(CHILD);
        assert.equal(child?.parentSessionId, MAIN);
        assert.equal(child?.model, "gpt-5-mini");
        assert.equal(child?.endedAt, null);
        assert.equal(child?.messageCount, 2);

        const again = await importFrom(store, hermes, [database], { driver });
        assert.deepEqual(again.sessions, { created: 0, grown: 0, unchanged: 2 });
        assert.equal(again.messages, 0);
        assert.deepEqual(again.problems, []);
        assert.equal(store.messageCount(MAIN), 14);
        assert.deepEqual(readFileSync(database), before, "the source is only read");
        // A read-only connection to a WAL database may create SQLite's sidecars, as every
        // reader of Hermes's does: they hold nothing.
        if (existsSync(`${database}-wal`)) assert.equal(statSync(`${database}-wal`).size, 0);
      } finally {
        store.close();
        rmSync(home, { recursive: true, force: true });
      }
    });

    it("takes in what another connection added between two imports, nothing twice", async () => {
      const { home, database } = hermesHome(driver);
      const store = open(join(home, "s.db"));
      try {
        await importFrom(store, hermes, [database], { driver });
        write(
          driver,
          database,
          `INSERT INTO messages (session_id, role, content, timestamp) VALUES
             ('${CHILD}', 'user', 'and the emoji? 👍🏽', 1772360395.0);
           UPDATE session_model_usage SET api_call_count = 3, input_tokens = 5400, output_tokens = 760
             WHERE session_id = '${CHILD}';
           INSERT INTO sessions (id, source, model, started_at) VALUES
             ('20260302_090000_0a0b0c', 'telegram', 'gpt-5', 1772442000.0);
           INSERT INTO messages (session_id, role, content, timestamp) VALUES
             ('20260302_090000_0a0b0c', 'user', 'bonjour', 1772442001.0);
           INSERT INTO sessions (id, source, parent_session_id, started_at) VALUES
             ('20260302_085959_early', 'tool', '20260302_090000_0a0b0c', 1772441999.0);`,
        );
        const second = await importFrom(store, hermes, [database], { driver });
        assert.deepEqual(second.sessions, { created: 2, grown: 1, unchanged: 1 });
        assert.deepEqual(second.problems, []);
        // The child's new message and its usage delta; the new session's row and message; the
        // row of the session listed before its parent (it started earlier), linked all the same.
        assert.equal(second.messages, 2 + 2 + 1);
        assert.equal(store.getSession("20260302_085959_early")?.parentSessionId, "20260302_090000_0a0b0c");
        assert.deepEqual(
          store.getMessages(CHILD).map((m) => m.content),
          [
            "find East Asian width tables",
            "Unicode publishes EastAsianWidth.txt; W and F are two columns.",
            "and the emoji? 👍🏽",
          ],
        );
        assert.deepEqual(
          store.getUsage(CHILD).map((u) => [u.model, u.billingMode, u.inputTokens, u.outputTokens]),
          [["gpt-5-mini", "", 5400, 760]],
          "the totals, not their sum; Hermes's cost, no estimate beside it",
        );
        assert.equal(store.getSession("20260302_090000_0a0b0c")?.metadata?.hermes && true, true);
        const third = await importFrom(store, hermes, [database], { driver });
        assert.equal(third.messages, 0);
        assert.deepEqual(third.sessions, { created: 0, grown: 0, unchanged: 4 });
      } finally {
        store.close();
        rmSync(home, { recursive: true, force: true });
      }
    });

    it("reports a database that is missing, not SQLite, not Hermes's or locked; stores nothing", async () => {
      const { home, database } = hermesHome(driver);
      const store = open(join(home, "s.db"));
      try {
        const missing = await importFrom(store, hermes, [join(home, "nope.db")], { driver });
        assert.match(missing.problems[0]?.message ?? "", /no such file/);
        const text = join(home, "notes.db");
        writeFileSync(text, "these are notes, not a database\n".repeat(200));
        const notSqlite = await importFrom(store, hermes, [text], { driver });
        assert.match(notSqlite.problems[0]?.message ?? "", /not a SQLite database/);
        const other = join(home, "other.db");
        write(driver, other, "CREATE TABLE t (x)");
        const notHermes = await importFrom(store, hermes, [other], { driver });
        assert.match(notHermes.problems[0]?.message ?? "", /not a Hermes state database/);

        // Another program holds the write lock of a rollback-journal database.
        write(driver, database, "PRAGMA journal_mode = DELETE");
        const holder = driver.open(database, { readOnly: false });
        try {
          holder.exec("BEGIN EXCLUSIVE");
          const locked = await importFrom(store, hermes, [database], { driver });
          assert.match(locked.problems[0]?.message ?? "", /locked by another program/);
          holder.exec("ROLLBACK");
        } finally {
          holder.close();
        }
        assert.equal(store.messageCount(), 0);
        assert.equal(store.listSessions({ source: "hermes" }).length, 0);
        await assert.rejects(importFrom(store, hermes, [database]), InvalidInputError);
        assert.equal(existsSync(`${text}-wal`), false);
      } finally {
        store.close();
        rmSync(home, { recursive: true, force: true });
      }
    });
  });
}
