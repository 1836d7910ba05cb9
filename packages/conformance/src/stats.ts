/** Conformance: `await store.stats()` counts what the API stored, agrees with the per-call reads, and
 * works read-only (what `sessiondb stats` needs, so the CLI sends no SQL of its own). */
import { BY_ROLE } from "@sessiondb/core/testing";
import { assert, type ConformanceTarget, fixtureTest, queryPlan } from "./harness.js";

export function statsSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);

  describe("stats", () => {
    test("an empty store counts nothing and reports its FTS state", async ({ open }) => {
      const store = await open();
      const stats = await store.stats();
      assert.deepEqual(
        { ...stats, fts: undefined },
        {
          sessions: { total: 0, archived: 0 },
          messages: { total: 0, byRole: {} },
          toolCalls: 0,
          tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
          costUsd: 0,
          fts: undefined,
        },
      );
      assert.deepEqual(stats.fts, await store.ftsStatus());
    });

    test("sessions, messages by role, tool calls, tokens and cost, read-only too", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "a", source: "cli" });
      await store.createSession({ id: "b", source: "gateway" });
      await store.appendMessages("a", [
        { role: "user", content: "list the files" },
        {
          role: "assistant",
          content: null,
          toolCalls: [
            { id: "c1", type: "function", function: { name: "ls", arguments: "{}" } },
            { id: "c2", type: "function", function: { name: "pwd", arguments: "{}" } },
          ],
        },
        { role: "tool", toolCallId: "c1", content: "a.txt" },
      ]);
      await store.appendMessage("b", { role: "user", content: "hi" });
      await store.recordUsage("a", { model: "m", inputTokens: 10, outputTokens: 4, costUsd: 0.25 });
      await store.recordUsage("b", {
        model: "m",
        cacheReadTokens: 3,
        cacheWriteTokens: 2,
        reasoningTokens: 1,
        costUsd: 0.5,
      });
      await store.updateSession("b", { archived: true });
      const expected = {
        sessions: { total: 2, archived: 1 },
        messages: { total: 4, byRole: { assistant: 1, tool: 1, user: 2 } },
        toolCalls: 2,
        tokens: { input: 10, output: 4, cacheRead: 3, cacheWrite: 2, reasoning: 1 },
        costUsd: 0.75,
      };
      const { fts, ...counts } = await store.stats();
      assert.deepEqual(counts, expected);
      assert.equal(counts.messages.total, await store.messageCount());
      assert.equal(fts.state, "ready");
      await store.close();
      const reader = await open({ readOnly: true });
      const { fts: _, ...again } = await reader.stats();
      assert.deepEqual(again, expected);
    });

    // Each engine's planner decides: the count must walk the partial role index alone, and a
    // lookup by role (the session list's previews, role-filtered searches) must never use it.
    test(
      "the count by role walks idx_messages_role, which no lookup by role uses",
      async (f) => {
        const store = await f.open();
        await store.createSession({ id: "a", source: "cli" });
        await store.appendMessage("a", { role: "user", content: "hi" });
        await store.close();
        const conn = f.raw();
        assert.match(queryPlan(conn, BY_ROLE), /COVERING INDEX idx_messages_role/);
        const lookups: Array<[string, ...string[]]> = [
          ["SELECT id FROM messages WHERE role = ?", "user"],
          ["SELECT id FROM messages WHERE session_id = ? AND role = 'user' ORDER BY id LIMIT 1", "a"],
          [
            "SELECT id FROM messages WHERE id > 0 AND role IN (?, 'tool') ORDER BY timestamp DESC LIMIT 20",
            "user",
          ],
        ];
        for (const [sql, ...params] of lookups) {
          assert.doesNotMatch(queryPlan(conn, sql, ...params), /idx_messages_role/);
        }
      },
      ["files"],
    );
  });
}
