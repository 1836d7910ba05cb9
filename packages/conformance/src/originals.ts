/**
 * Conformance: messages from outside — the producer's id (a second write stores nothing), the
 * original item kept as given, usage carried by a message, inactive rows, and `updateMessage`.
 * What the framework bindings and the importers stand on.
 */
import type { Json, MessageInput } from "@sessiondb/core";
import { assert, type ConformanceTarget, fixtureTest, throwsCode } from "./harness.js";

const line = (uuid: string, text: string): Json => ({
  type: "user",
  uuid,
  message: { role: "user", content: [{ type: "text", text }] },
  extra: { nested: [1, null, "ü 😀"] },
});

const fromLine = (uuid: string, text: string, more: Partial<MessageInput> = {}): MessageInput => ({
  role: "user",
  content: text,
  externalId: uuid,
  original: { format: "test-shape", value: line(uuid, text) },
  ...more,
});

export function originalsSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);

  describe("messages from outside", () => {
    test("the original reads back as given, with the external id", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "import" });
      const [id] = await store.appendMessages("s", [fromLine("u1", "hello")]);
      const [message] = await store.getMessages("s");
      assert.equal(message?.id, id);
      assert.equal(message?.externalId, "u1");
      assert.deepEqual(message?.original, { format: "test-shape", value: line("u1", "hello") });
    });

    test("a second write of an external id stores nothing and answers the stored id", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "import" });
      const first = await store.appendMessages("s", [
        fromLine("u1", "one", { usage: { model: "m", inputTokens: 5, costUsd: 0.25 } }),
        fromLine("u2", "two", { toolCalls: [{ id: "c" }] }),
      ]);
      const again = await store.appendMessages("s", [
        fromLine("u2", "two, changed", { toolCalls: [{ id: "c" }], usage: { model: "m", inputTokens: 7 } }),
        fromLine("u3", "three"),
        fromLine("u3", "three again"),
      ]);
      assert.equal(again[0], first[1]);
      assert.equal(again[1], again[2]);
      const messages = await store.getMessages("s");
      assert.deepEqual(
        messages.map((m) => m.content),
        ["one", "two", "three"],
      );
      const session = await store.getSession("s");
      assert.equal(session?.messageCount, 3);
      assert.equal(session?.toolCallCount, 1);
      // Usage went in with u1 only: the skipped u2 carried none into the counters.
      assert.equal(session?.inputTokens, 5);
      assert.equal(session?.estimatedCostUsd, 0.25);
      const usage = await store.getUsage("s");
      assert.equal(usage.length, 1);
      assert.equal(usage[0]?.callCount, 1);
      assert.equal(await store.messageCount("s"), 3);
    });

    test("a second write of an external id leaves the session's last activity as it was", async ({
      open,
    }) => {
      // Found by the model checker: the skipped message's timestamp moved lastActivityAt.
      const store = await open();
      await store.createSession({ id: "s", source: "import" });
      await store.appendMessages("s", [fromLine("u1", "one", { timestamp: 1000 })]);
      await store.appendMessages("s", [fromLine("u1", "one", { timestamp: 5000 })]);
      assert.equal((await store.getSession("s"))?.lastActivityAt, 1000);
      await store.appendMessages("s", [
        fromLine("u1", "one", { timestamp: 6000 }),
        fromLine("u2", "two", { timestamp: 2000 }),
        { role: "user", content: "three", timestamp: 1500 },
      ]);
      assert.equal((await store.getSession("s"))?.lastActivityAt, 2000);
    });

    test("the same external id in two sessions is two messages", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "a", source: "import" });
      await store.createSession({ id: "b", source: "import" });
      await store.appendMessage("a", fromLine("u1", "x"));
      await store.appendMessage("b", fromLine("u1", "x"));
      assert.equal(await store.messageCount(), 2);
    });

    test("an inactive row is kept, hidden from the conversation and its counters", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "import" });
      await store.appendMessages("s", [
        fromLine("u1", "visible"),
        {
          role: "system",
          content: null,
          active: false,
          externalId: "snap",
          original: { format: "x", value: 1 },
        },
      ]);
      assert.equal((await store.getMessages("s")).length, 1);
      const all = await store.getMessages("s", { includeInactive: true });
      assert.deepEqual(
        all.map((m) => [m.externalId, m.active]),
        [
          ["u1", true],
          ["snap", false],
        ],
      );
      assert.equal((await store.getSession("s"))?.messageCount, 1);
    });

    test("updateMessage changes a message in place; search and counters follow", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "import" });
      const [id] = await store.appendMessages("s", [fromLine("u1", "before zebra")]);
      await store.updateMessage("s", id as number, {
        content: "after giraffe",
        toolCalls: [{ id: "c1" }, { id: "c2" }],
        original: { format: "test-shape", value: line("u1", "after giraffe") },
      });
      const [message] = await store.getMessages("s");
      assert.equal(message?.id, id);
      assert.equal(message?.content, "after giraffe");
      assert.deepEqual(message?.original?.value, line("u1", "after giraffe"));
      assert.equal((await store.search("giraffe")).hits.length, 1);
      assert.equal((await store.search("zebra")).hits.length, 0);
      assert.equal((await store.getSession("s"))?.toolCallCount, 2);
      await store.updateMessage("s", id as number, { active: false });
      const hidden = await store.getSession("s");
      assert.equal(hidden?.messageCount, 0);
      assert.equal(hidden?.toolCallCount, 0);
      assert.equal((await store.getMessages("s")).length, 0);
      await store.updateMessage("s", id as number, { active: true });
      assert.equal((await store.getSession("s"))?.toolCallCount, 2);
    });

    test("bad input is INVALID_INPUT naming the field, and stores nothing", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "import" });
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const bad: unknown[] = [
        { externalId: 5 },
        { externalId: "x".repeat(501) },
        { original: { value: 1 } },
        { original: { format: "f" } },
        { original: { format: "f", value: cyclic } },
        { original: { format: "f", value: "x".repeat(16 * 1024 * 1024 + 1) } },
        { usage: { inputTokens: 1 } },
        { active: "no" },
      ];
      for (const fields of bad) {
        const error = await throwsCode(
          () => store.appendMessages("s", [fromLine("ok", "fine"), { role: "user", ...(fields as object) }]),
          "INVALID_INPUT",
        );
        assert.match(String((error as { field?: string }).field), /^messages\[1\]\./);
      }
      assert.equal(await store.messageCount("s"), 0);
      const [id] = await store.appendMessages("s", [fromLine("u1", "x")]);
      await throwsCode(() => store.updateMessage("s", (id as number) + 1, { content: "y" }), "INVALID_INPUT");
      await throwsCode(
        () => store.updateMessage("s", id as number, { role: "tool" } as never),
        "INVALID_INPUT",
      );
      await throwsCode(
        () => store.updateMessage("missing", id as number, { content: "y" }),
        "SESSION_NOT_FOUND",
      );
      assert.equal((await store.getMessages("s"))[0]?.content, "x");
    });
  });
}
