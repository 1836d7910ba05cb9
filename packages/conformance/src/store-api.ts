/** Conformance: sessions, messages, usage, counts and bad input through the public API. */
import { type Json, LIMITS } from "@sessiondb/core";
import { assert, type ConformanceTarget, fixtureTest, scalar, throwsCode } from "./harness.js";

const { MAX_CONTENT_CHARS, MAX_SESSION_ID_CHARS } = LIMITS;

export function storeApiSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);

  describe("sessions", () => {
    test("createSession stores the fields and getSession reads them back", async ({ open }) => {
      const store = await open();
      const session = await store.createSession({
        id: "s1",
        source: "cli",
        model: "gpt-x",
        title: "first",
        cwd: "/tmp",
        metadata: { tags: ["a"], n: 1 },
        startedAt: 1700000000.5,
      });
      assert.equal(session.id, "s1");
      assert.deepEqual(await store.getSession("s1"), session);
      assert.equal(session.startedAt, 1700000000.5);
      assert.deepEqual(session.metadata, { tags: ["a"], n: 1 });
      assert.equal(session.messageCount, 0);
      assert.equal(await store.getSession("missing"), undefined);
    });

    test("createSession is an upsert that never overwrites stored non-null values", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s1", source: "cli", title: "kept" });
      const again = await store.createSession({
        id: "s1",
        source: "gateway",
        title: "ignored",
        model: "filled",
      });
      assert.equal(again.title, "kept");
      assert.equal(again.source, "cli");
      assert.equal(again.model, "filled");
    });

    test("createSession without id generates a unique one", async ({ open }) => {
      const store = await open();
      const a = await store.createSession({ source: "cron" });
      const b = await store.createSession({ source: "cron" });
      assert.notEqual(a.id, b.id);
      assert.ok(a.id.length > 8);
    });

    test("parent sessions must exist; deleting a parent keeps the child", async ({ open }) => {
      const store = await open();
      await throwsCode(
        () => store.createSession({ id: "child", source: "cli", parentSessionId: "nope" }),
        "SESSION_NOT_FOUND",
      );
      assert.equal(await store.getSession("child"), undefined);
      await store.createSession({ id: "parent", source: "cli" });
      await store.createSession({ id: "child", source: "cli", parentSessionId: "parent" });
      await store.appendMessage("parent", { role: "user", content: "hello" });
      assert.equal(await store.deleteSession("parent"), 1);
      assert.equal((await store.getSession("child"))?.parentSessionId, null);
      await throwsCode(() => store.deleteSession("parent"), "SESSION_NOT_FOUND");
    });

    test("createSession filling a missing parent never closes a circle of parents", async ({ open }) => {
      const store = await open();
      // a ← b ← c, and a has no parent yet: the upsert may fill it, but not with a descendant.
      await store.createSession({ id: "a", source: "cli" });
      await store.createSession({ id: "b", source: "cli", parentSessionId: "a" });
      await store.createSession({ id: "c", source: "cli", parentSessionId: "b" });
      for (const descendant of ["b", "c"])
        await throwsCode(
          () => store.createSession({ id: "a", source: "cli", title: "t", parentSessionId: descendant }),
          "INVALID_INPUT",
        );
      const a = await store.getSession("a");
      assert.equal(a?.parentSessionId, null);
      assert.equal(a?.title, null, "a refused upsert changes nothing");
      // Any other session may still become its parent; a stored parent is kept, not checked again.
      await store.createSession({ id: "root", source: "cli" });
      assert.equal(
        (await store.createSession({ id: "a", source: "cli", parentSessionId: "root" })).parentSessionId,
        "root",
      );
      assert.equal(
        (await store.createSession({ id: "a", source: "cli", parentSessionId: "c" })).parentSessionId,
        "root",
      );
    });

    test("updateSession and endSession change only what they name", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli", title: "t" });
      const updated = await store.updateSession("s", { archived: true, pinned: true, metadata: { k: "v" } });
      assert.equal(updated.archived, true);
      assert.equal(updated.pinned, true);
      assert.equal(updated.title, "t");
      const ended = await store.endSession("s", "user_exit");
      assert.equal(ended.endReason, "user_exit");
      assert.equal(typeof ended.endedAt, "number");
      assert.equal((await store.endSession("s", "later")).endReason, "user_exit");
      await throwsCode(() => store.updateSession("nope", { title: "x" }), "SESSION_NOT_FOUND");
      await throwsCode(() => store.updateSession("s", { archived: "yes" as never }), "INVALID_INPUT");
    });

    test("listSessions orders, filters, pages and previews the first user message", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "old", source: "cli", startedAt: 100 });
      await store.createSession({ id: "new", source: "gateway", startedAt: 200 });
      await store.createSession({ id: "archived", source: "cli", startedAt: 300 });
      await store.updateSession("archived", { archived: true });
      await store.appendMessage("old", { role: "system", content: "sys", timestamp: 500 });
      await store.appendMessage("old", { role: "user", content: "first question", timestamp: 501 });
      assert.deepEqual(
        (await store.listSessions()).map((s) => s.id),
        ["new", "old"],
      );
      assert.deepEqual(
        (await store.listSessions({ includeArchived: true })).map((s) => s.id),
        ["archived", "new", "old"],
      );
      assert.deepEqual(
        (await store.listSessions({ orderBy: "activity" })).map((s) => s.id),
        ["old", "new"],
      );
      assert.deepEqual(
        (await store.listSessions({ source: "cli" })).map((s) => s.id),
        ["old"],
      );
      assert.deepEqual(
        (await store.listSessions({ limit: 1, offset: 1 })).map((s) => s.id),
        ["old"],
      );
      const old = (await store.listSessions({ source: "cli" }))[0];
      assert.equal(old?.preview, "first question");
      assert.equal(old?.messageCount, 2);
      assert.equal(old?.lastActiveAt, 501);
      await throwsCode(() => store.listSessions({ orderBy: "title" as never }), "INVALID_INPUT");
    });
  });

  describe("messages", () => {
    test("appendMessage returns growing ids and getMessages reads every field back", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      const a = await store.appendMessage("s", { role: "user", content: "hi", timestamp: 10 });
      const b = await store.appendMessage("s", {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }],
        tokenCount: 12,
        finishReason: "tool_calls",
        reasoning: "think",
        metadata: { m: true },
        timestamp: 11,
      });
      const c = await store.appendMessage("s", {
        role: "tool",
        toolName: "ls",
        toolCallId: "c1",
        content: "a\nb",
        timestamp: 12,
      });
      assert.ok(a < b && b < c);
      const messages = await store.getMessages("s");
      assert.equal(messages.length, 3);
      assert.deepEqual(messages[1], {
        id: b,
        sessionId: "s",
        role: "assistant",
        content: null,
        toolName: null,
        toolCallId: null,
        toolCalls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }],
        timestamp: 11,
        tokenCount: 12,
        finishReason: "tool_calls",
        reasoning: "think",
        active: true,
        metadata: { m: true },
        externalId: null,
        original: null,
      });
      assert.equal(messages[2]?.toolName, "ls");
      assert.deepEqual(
        (await store.getMessages("s", { afterId: a, limit: 1 })).map((m) => m.id),
        [b],
      );
      const session = await store.getSession("s");
      assert.equal(session?.messageCount, 3);
      assert.equal(session?.toolCallCount, 1);
      assert.equal(session?.lastActivityAt, 12);
      assert.equal(await store.messageCount("s"), 3);
      assert.equal(await store.messageCount(), 3);
    });

    test("reads of an unknown session throw, reads of an empty session or range return nothing", async ({
      open,
    }) => {
      const store = await open();
      await store.createSession({ id: "empty", source: "cli" });
      await store.createSession({ id: "s", source: "cli" });
      const id = await store.appendMessage("s", { role: "user", content: "only" });
      for (const options of [{}, { last: 3 }, { last: 0 }, { limit: 0 }, { limit: 2, afterId: 5 }]) {
        await throwsCode(() => store.getMessages("nope", options), "SESSION_NOT_FOUND");
        assert.deepEqual(await store.getMessages("empty", options), []);
      }
      await throwsCode(() => store.messageCount("nope"), "SESSION_NOT_FOUND");
      assert.equal(await store.messageCount("empty"), 0);
      assert.deepEqual(await store.getMessages("s", { afterId: id }), []);
      assert.deepEqual(await store.getMessages("s", { beforeId: id, last: 5 }), []);
      assert.deepEqual(
        (await store.getMessages("s", { last: 5 })).map((m) => m.content),
        ["only"],
      );
    });

    test("getMessages reads the last N and the messages before an id, in id order", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      await store.createSession({ id: "other", source: "cli" });
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) {
        ids.push(await store.appendMessage("s", { role: "user", content: `m${i}` }));
        await store.appendMessage("other", { role: "user", content: `o${i}` }); // interleaved ids
      }
      const contents = async (options: object) =>
        (await store.getMessages("s", options)).map((m) => m.content);
      assert.deepEqual(await contents({ last: 3 }), ["m9", "m10", "m11"]);
      assert.deepEqual(await contents({ last: 0 }), []);
      assert.equal((await contents({ last: 100 })).length, 12);
      assert.deepEqual(await contents({ beforeId: ids[4] }), ["m0", "m1", "m2", "m3"]);
      assert.deepEqual(await contents({ beforeId: ids[4], last: 2 }), ["m2", "m3"]);
      assert.deepEqual(await contents({ beforeId: ids[4], limit: 2 }), ["m0", "m1"]);
      assert.deepEqual(await contents({ afterId: ids[1], beforeId: ids[4] }), ["m2", "m3"]);
      // Paging backwards from the end with beforeId walks the whole session once.
      const back: unknown[] = [];
      let before: number | undefined;
      for (;;) {
        const page = await store.getMessages("s", {
          last: 5,
          ...(before === undefined ? {} : { beforeId: before }),
        });
        if (page.length === 0) break;
        back.unshift(...page.map((m) => m.content));
        before = page[0]?.id;
      }
      assert.deepEqual(back, await contents({}));
    });

    test("appendMessages is one transaction: one bad message stores none", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      const ids = await store.appendMessages("s", [
        { role: "user", content: "one" },
        { role: "assistant", content: "two" },
      ]);
      assert.equal(ids.length, 2);
      const error = await throwsCode(
        () =>
          store.appendMessages("s", [
            { role: "user", content: "ok" },
            { role: "wizard" as never, content: "bad" },
          ]),
        "INVALID_INPUT",
      );
      assert.match(error.message, /messages\[1\]\.role/);
      assert.equal(await store.messageCount("s"), 2);
      assert.deepEqual(await store.appendMessages("s", []), []);
    });

    test("an append of no messages is still checked: unknown session, read-only, closed", async ({
      open,
    }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      await throwsCode(() => store.appendMessages("typo", []), "SESSION_NOT_FOUND");
      const reader = await open({ readOnly: true });
      await throwsCode(() => reader.appendMessages("s", []), "STORE_READONLY");
      await reader.close();
      await store.close();
      await throwsCode(() => store.appendMessages("s", []), "STORE_CLOSED");
    });

    test("structured content reads back identical and its text is stored for search", async ({
      open,
      raw,
    }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      const parts: Json[] = [
        { type: "text", text: "look at this" },
        { type: "image_url", image_url: { url: "https://example.invalid/cat.png" } },
        { type: "text", text: "and this" },
      ];
      const id = await store.appendMessage("s", { role: "user", content: parts });
      assert.deepEqual((await store.getMessages("s"))[0]?.content, parts);
      const conn = raw();
      assert.equal(scalar(conn, "SELECT content FROM messages WHERE id = ?", id), "look at this\nand this");
    });

    test("lone surrogates are replaced, not rejected", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      await store.appendMessage("s", { role: "user", content: "bad \uD800 half and \uDC00 other; ok 😀" });
      await store.appendMessage("s", { role: "user", content: [{ type: "text", text: "x\uD83D" }] });
      const [first, second] = await store.getMessages("s");
      assert.equal(first?.content, "bad \uFFFD half and \uFFFD other; ok 😀");
      assert.deepEqual(second?.content, [{ type: "text", text: "x\uFFFD" }]);
      // Metadata keys too, unless two of them would become one key (one value silently lost).
      await store.updateSession("s", { metadata: { "k\uD800": 1, nested: { "\uDC00": true } } });
      assert.deepEqual((await store.getSession("s"))?.metadata, { "k\uFFFD": 1, nested: { "\uFFFD": true } });
      const colliding: Array<{ [key: string]: Json }> = [
        { "k\uD800": 1, "k\uDBFF": 2 },
        { nested: { "\uFFFD": 1, "\uDC00": 2 } },
      ];
      for (const metadata of colliding) {
        const error = await throwsCode(() => store.updateSession("s", { metadata }), "INVALID_INPUT");
        assert.match(error.message, /once their lone surrogates are replaced/);
      }
      await throwsCode(
        () => store.createSession({ id: "t", source: "cli", metadata: { "\uD800": 1, "\uDFFF": 2 } }),
        "INVALID_INPUT",
      );
      assert.equal(await store.getSession("t"), undefined);
      assert.deepEqual((await store.getSession("s"))?.metadata, { "k\uFFFD": 1, nested: { "\uFFFD": true } });
    });

    test("bad input gets a typed error and changes nothing", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      await store.appendMessage("s", { role: "user", content: "kept" });
      const cases: Array<[() => unknown, string]> = [
        [() => store.appendMessage("nope", { role: "user", content: "x" }), "SESSION_NOT_FOUND"],
        [() => store.appendMessage("s", { role: "robot" as never, content: "x" }), "INVALID_INPUT"],
        [() => store.appendMessage("s", { role: "user", content: 42 as never }), "INVALID_INPUT"],
        [
          () => store.appendMessage("s", { role: "user", content: "x", timestamp: Number.NaN }),
          "INVALID_INPUT",
        ],
        [
          () => store.appendMessage("s", { role: "user", content: "x", timestamp: Infinity }),
          "INVALID_INPUT",
        ],
        [() => store.appendMessage("s", { role: "user", content: "x", tokenCount: -1 }), "INVALID_INPUT"],
        [
          () => store.appendMessage("s", { role: "user", content: "x", toolCalls: "no" as never }),
          "INVALID_INPUT",
        ],
        [
          () => store.appendMessage("s", { role: "user", content: "x", metadata: [] as never }),
          "INVALID_INPUT",
        ],
        [() => store.appendMessage("s", { role: "user", content: { f: () => 1 } as never }), "INVALID_INPUT"],
        [() => store.appendMessage("s", null as never), "INVALID_INPUT"],
        [() => store.appendMessage("", { role: "user", content: "x" }), "INVALID_INPUT"],
        [() => store.appendMessage("x".repeat(MAX_SESSION_ID_CHARS + 1), { role: "user" }), "INVALID_INPUT"],
        [() => store.appendMessage(7 as never, { role: "user" }), "INVALID_INPUT"],
        [() => store.createSession({ id: "", source: "cli" }), "INVALID_INPUT"],
        [() => store.createSession({ id: "a\u0000b", source: "cli" }), "INVALID_INPUT"],
        [() => store.createSession({ id: "ok", source: "" }), "INVALID_INPUT"],
        [() => store.createSession({ id: "ok", source: "cli", startedAt: Number.NaN }), "INVALID_INPUT"],
        [() => store.recordUsage("s", { model: "" }), "INVALID_INPUT"],
        [() => store.recordUsage("s", { model: "m", costUsd: -1 }), "INVALID_INPUT"],
        [() => store.recordUsage("nope", { model: "m" }), "SESSION_NOT_FOUND"],
        [() => store.getMessages("nope"), "SESSION_NOT_FOUND"],
      ];
      for (const [call, code] of cases) await throwsCode(call, code);
      assert.equal(await store.messageCount(), 1);
      assert.equal(await store.getSession("ok"), undefined);
      assert.equal((await store.getSession("s"))?.messageCount, 1);
      assert.deepEqual(await store.getUsage("s"), []);
    });

    test("huge content is refused with a clear limit", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      const error = await throwsCode(
        () => store.appendMessage("s", { role: "tool", content: "x".repeat(MAX_CONTENT_CHARS + 1) }),
        "INVALID_INPUT",
      );
      assert.match(error.message, /allowed/);
      const big = "y".repeat(1_000_000);
      await store.appendMessage("s", { role: "tool", content: big });
      const stored = (await store.getMessages("s"))[0]?.content;
      assert.equal(typeof stored === "string" ? stored.length : -1, big.length);
    });
  });

  describe("usage", () => {
    test("recordUsage adds per key and to the session totals", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      await store.recordUsage("s", {
        model: "m1",
        provider: "p",
        inputTokens: 10,
        outputTokens: 5,
        costUsd: 0.01,
      });
      await store.recordUsage("s", {
        model: "m1",
        provider: "p",
        inputTokens: 1,
        cacheReadTokens: 7,
        costUsd: 0.02,
      });
      await store.recordUsage("s", { model: "m2", task: "title", reasoningTokens: 3 });
      const rows = await store.getUsage("s");
      assert.equal(rows.length, 2);
      assert.equal(rows[0]?.callCount, 2);
      assert.equal(rows[0]?.inputTokens, 11);
      assert.equal(rows[0]?.cacheReadTokens, 7);
      assert.ok(Math.abs((rows[0]?.costUsd ?? 0) - 0.03) < 1e-9);
      assert.equal(rows[1]?.task, "title");
      const session = await store.getSession("s");
      assert.equal(session?.inputTokens, 11);
      assert.equal(session?.reasoningTokens, 3);
      assert.ok(Math.abs((session?.estimatedCostUsd ?? 0) - 0.03) < 1e-9);
    });
  });
}
