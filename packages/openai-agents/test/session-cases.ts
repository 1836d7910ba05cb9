/**
 * The Session contract on a real store, written once for vitest (Node: better-sqlite3 and a real
 * sqld), `bun test` and `deno test`; each entry passes its runner's describe/it and how to open
 * a fresh store. Items of every type come back deep-equal; the history is the active rows;
 * popItem, clearSession, history transactions (applied once per operation id), mutations and
 * bad input (named by index, nothing stored).
 */
import assert from "node:assert/strict";
import { type AgentInputItem, RunContext, run, setTracingDisabled, Usage } from "@openai/agents-core";
import type { AsyncStore, Message, Store } from "@sessiondb/core";
import { InvalidInputError, SessionDbSession } from "../src/index.js";
import { weatherAgent } from "./support/script-model.mjs"; // plain JavaScript: the child processes run it too

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>, timeoutMs?: number) => void;
type Hooks = { before(fn: () => Promise<void>): void; after(fn: () => Promise<void>): void };

/** A way to get a store for the cases: `open` gives a fresh one (or the same, new ids are used). */
export interface StoreTarget {
  name: string;
  /** Why the target cannot run here, if it cannot (the cases are then skipped, saying so). */
  skip?: string;
  open(): Promise<Store | AsyncStore>;
  close(store: Store | AsyncStore): Promise<void>;
}

/** One item of each kind the SDK builds, providerData and ids included. */
export const ITEMS: AgentInputItem[] = [
  { role: "system", content: "Antworte kurz." },
  {
    role: "user",
    content: [{ type: "input_text", text: "Wie ist das Wetter in Zürich? 🌫️" }],
    providerData: { lang: "de" },
  },
  {
    type: "reasoning",
    id: "rs_1",
    content: [{ type: "input_text", text: "Wetter-Tool fragen." }],
    providerData: { encrypted_content: "opaque" },
  },
  {
    type: "function_call",
    id: "fc_1",
    callId: "call_1",
    name: "weather",
    arguments: '{"city":"Zürich"}',
    status: "completed",
  },
  {
    type: "function_call_result",
    callId: "call_1",
    name: "weather",
    status: "completed",
    output: { type: "text", text: "12°C, Nebel" },
  },
  {
    type: "hosted_tool_call",
    id: "ws_1",
    name: "web_search_call",
    status: "completed",
    arguments: '{"q":"Nebel"}',
    output: "Nebel im Herbst.",
  },
  { type: "shell_call", callId: "sh_1", status: "completed", action: { commands: ["date"] } },
  {
    type: "shell_call_output",
    callId: "sh_1",
    output: [{ stdout: "Mo 7. Dez", stderr: "", outcome: { type: "exit", exitCode: 0 } }],
  },
  {
    role: "assistant",
    id: "msg_1",
    status: "completed",
    content: [{ type: "output_text", text: "12°C und Nebel." }],
  },
  { type: "compaction", encrypted_content: "enc", id: "cmp_1" },
  { type: "unknown", providerData: { kind: "future" } },
  { type: "future_item", anything: [1, { deep: true }] } as unknown as AgentInputItem,
];

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail("expected a rejection"),
    (error: unknown) => error,
  );
}

let counter = 0;
const freshId = (name: string) => `${name}-${Date.now().toString(36)}-${counter++}`;

export function sessionCases(describe: Suite, it: Test, hooks: Hooks, target: StoreTarget): void {
  if (target.skip !== undefined) {
    describe(`SessionDbSession on ${target.name} — skipped: ${target.skip}`, () => {});
    return;
  }
  describe(`SessionDbSession on ${target.name}`, () => {
    let store: Store | AsyncStore;
    hooks.before(async () => {
      store = await target.open();
    });
    hooks.after(async () => {
      await target.close(store);
    });
    const rows = async (id: string, includeInactive = false) =>
      (await store.getMessages(id, { includeInactive })) as Message[];

    it("drives the real Runner: a tool call, then a new session object resumes from the store", async () => {
      setTracingDisabled(true);
      const sessionId = freshId("runner");
      const agent = weatherAgent();
      const first = await run(agent, "What is the weather in Zürich?", {
        session: new SessionDbSession({ store, sessionId }),
      });
      assert.equal(first.finalOutput, "It is 12°C and foggy in Zürich.");
      const second = await run(agent, "And before?", { session: new SessionDbSession({ store, sessionId }) });
      assert.equal(second.finalOutput, "You first asked: What is the weather in Zürich? (5 items given)");
      const stored = await rows(sessionId);
      assert.deepEqual(
        stored.map((r) => r.role),
        ["user", "assistant", "tool", "assistant", "user", "assistant"],
      );
      assert.equal(stored[2]?.toolCallId, (stored[1]?.toolCalls?.[0] as { id?: string } | undefined)?.id);
    });

    it("gives every item back deep-equal, and its rows read like any session's", async () => {
      const session = new SessionDbSession({
        store,
        sessionId: freshId("items"),
        session: { model: "gpt-test" },
      });
      await session.addItems(ITEMS.slice(0, 5));
      await session.addItems(ITEMS.slice(5));
      assert.deepEqual(await session.getItems(), ITEMS);
      assert.deepEqual(await session.getItems(3), ITEMS.slice(-3));
      assert.deepEqual(await session.getItems(0), []);
      const id = await session.getSessionId();
      const stored = await rows(id);
      assert.equal(stored.length, ITEMS.length);
      assert.deepEqual(
        stored.map((r) => r.role),
        [
          "system",
          "user",
          "assistant",
          "assistant",
          "tool",
          "assistant",
          "assistant",
          "tool",
          "assistant",
          "assistant",
          "assistant",
          "assistant",
        ],
      );
      assert.equal(stored[4]?.toolCallId, "call_1");
      assert.equal(stored[4]?.toolName, "weather");
      assert.deepEqual(stored[3]?.toolCalls, [
        { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Zürich"}' } },
      ]);
      const record = await store.getSession(id);
      assert.equal(record?.source, "openai-agents");
      assert.equal(record?.model, "gpt-test");
      const found = await store.search("Nebel", { sessionId: id });
      assert.ok(found.hits.length >= 2, "the items' text is searchable");
    });

    it("refuses an item the SDK could never produce, naming its index; nothing stored", async () => {
      const session = new SessionDbSession({ store, sessionId: freshId("bad") });
      const id = await session.getSessionId();
      const cyclic: Record<string, unknown> = { role: "user", content: "x" };
      cyclic.self = cyclic;
      const cases: [unknown, string][] = [
        [{ type: "function_call", callId: 5, name: "f", arguments: "{}" }, "items[1].callId"],
        [{ role: "user", content: 7 }, "items[1]"],
        [cyclic, "items[1].self"],
        [{ nothing: true }, "items[1]"],
        [{ role: "user", content: "x".repeat(17 * 1024 * 1024) }, "items[1]"],
        [{ role: "user", content: "x", when: new Date() }, "items[1].when"],
        ["hello", "items[1]"],
      ];
      for (const [bad, field] of cases) {
        const error = await rejection(
          session.addItems([{ role: "user", content: "ok" }, bad as AgentInputItem]),
        );
        assert.ok(error instanceof InvalidInputError, `${field}: ${String(error)}`);
        assert.ok(error.field.startsWith(field), `${error.field} starts with ${field}`);
      }
      assert.equal(await store.messageCount(id), 0);
    });

    it("popItem takes the newest item out and gives it back; the row stays inactive", async () => {
      const session = new SessionDbSession({ store, sessionId: freshId("pop") });
      await session.addItems(ITEMS.slice(0, 4));
      assert.deepEqual(await session.popItem(), ITEMS[3]);
      assert.deepEqual(await session.popItem(), ITEMS[2]);
      assert.deepEqual(await session.getItems(), ITEMS.slice(0, 2));
      await session.addItems([ITEMS[3] as AgentInputItem]);
      assert.deepEqual(await session.getItems(), [ITEMS[0], ITEMS[1], ITEMS[3]]);
      const id = await session.getSessionId();
      assert.equal((await rows(id, true)).length, 5);
      await session.clearSession();
      assert.deepEqual(await session.getItems(), []);
      assert.equal(await session.popItem(), undefined);
      assert.equal((await rows(id, true)).length, 5, "cleared rows are kept, inactive");
      await session.addItems([ITEMS[1] as AgentInputItem]);
      assert.deepEqual(await session.getItems(), [ITEMS[1]]);
    });

    it("a history transaction applies once per operation id; a different one under it fails", async () => {
      const session = new SessionDbSession({ store, sessionId: freshId("txn") });
      const append = {
        operationId: "op-1",
        transaction: { type: "append_items" as const, items: ITEMS.slice(0, 3) },
      };
      await session.applyHistoryTransaction(append);
      await session.applyHistoryTransaction(structuredClone(append));
      assert.deepEqual(await session.getItems(), ITEMS.slice(0, 3));
      const other = {
        operationId: "op-1",
        transaction: { type: "append_items" as const, items: ITEMS.slice(0, 1) },
      };
      const error = await rejection(session.applyHistoryTransaction(other));
      assert.match(String(error), /different transaction/);
      const replace = {
        operationId: "op-2",
        transaction: {
          type: "replace_suffix" as const,
          expectedSuffix: ITEMS.slice(1, 3),
          replacement: [ITEMS[8] as AgentInputItem],
        },
      };
      await session.applyHistoryTransaction(replace);
      await session.applyHistoryTransaction(replace);
      assert.deepEqual(await session.getItems(), [ITEMS[0], ITEMS[8]]);
      const stale = {
        operationId: "op-3",
        transaction: { type: "replace_suffix" as const, expectedSuffix: ITEMS.slice(1, 3), replacement: [] },
      };
      assert.match(String(await rejection(session.applyHistoryTransaction(stale))), /no longer matches/);
      assert.deepEqual(
        await session.getItems(),
        [ITEMS[0], ITEMS[8]],
        "a failed transaction changes nothing",
      );
      // op-3 was not recorded: once the suffix matches, it applies.
      await session.applyHistoryTransaction({
        operationId: "op-3",
        transaction: {
          type: "replace_suffix",
          expectedSuffix: [ITEMS[8] as AgentInputItem],
          replacement: [],
        },
      });
      assert.deepEqual(await session.getItems(), [ITEMS[0]]);
    });

    it("replaces a function call in place, and the history with a compaction", async () => {
      const session = new SessionDbSession({ store, sessionId: freshId("mut") });
      await session.addItems(ITEMS.slice(0, 5));
      const replacement = { ...(ITEMS[3] as object), arguments: '{"city":"Bern"}' } as AgentInputItem;
      await session.applyHistoryMutations({
        mutations: [{ type: "replace_function_call", callId: "call_1", replacement: replacement as never }],
      });
      const items = await session.getItems();
      assert.deepEqual(items[3], replacement);
      const id = await session.getSessionId();
      const call = (await rows(id))[3];
      assert.match(JSON.stringify(call?.toolCalls), /Bern/);
      await session.replaceHistoryWithCompaction([ITEMS[9] as AgentInputItem, ITEMS[1] as AgentInputItem]);
      assert.deepEqual(await session.getItems(), [ITEMS[9], ITEMS[1]]);
    });

    it("records the usage a run's context added with each write, counted once", async () => {
      const session = new SessionDbSession({
        store,
        sessionId: freshId("usage"),
        session: { model: "gpt-x" },
      });
      const context = new RunContext();
      await session.addItems([ITEMS[1] as AgentInputItem], context); // before any request: none
      context.usage.add(
        new Usage({
          requests: 1,
          inputTokens: 100,
          outputTokens: 20,
          totalTokens: 120,
          inputTokensDetails: { cached_tokens: 40 },
          outputTokensDetails: { reasoning_tokens: 5 },
        }),
      );
      await session.addItems(ITEMS.slice(2, 4), context);
      context.usage.add(
        new Usage({
          requests: 1,
          inputTokens: 150,
          outputTokens: 10,
          totalTokens: 160,
          inputTokensDetails: { cached_tokens: 100 },
        }),
      );
      await session.applyHistoryTransaction(
        { operationId: "u-1", transaction: { type: "append_items", items: [ITEMS[4] as AgentInputItem] } },
        context,
      );
      await session.applyHistoryTransaction(
        { operationId: "u-1", transaction: { type: "append_items", items: [ITEMS[4] as AgentInputItem] } },
        context,
      );
      await session.addItems([ITEMS[8] as AgentInputItem], context); // nothing new since
      const usage = await store.getUsage(await session.getSessionId());
      assert.equal(usage.length, 1);
      assert.deepEqual(
        [
          usage[0]?.model,
          usage[0]?.callCount,
          usage[0]?.inputTokens,
          usage[0]?.cacheReadTokens,
          usage[0]?.outputTokens,
          usage[0]?.reasoningTokens,
        ],
        ["gpt-x", 2, 110, 140, 30, 5],
      );
    });

    it("a session some other writer started reads back as items", async () => {
      const id = freshId("plain");
      await store.createSession({ id, source: "elsewhere" });
      await store.appendMessages(id, [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: "calling",
          toolCalls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", toolCallId: "c1", toolName: "f", content: "done" },
      ]);
      const items = await new SessionDbSession({ store, sessionId: id }).getItems();
      assert.deepEqual(items, [
        { role: "user", content: "hi" },
        { role: "assistant", status: "completed", content: [{ type: "output_text", text: "calling" }] },
        { type: "function_call", callId: "c1", name: "f", arguments: "{}" },
        { type: "function_call_result", callId: "c1", name: "f", status: "completed", output: "done" },
      ]);
      assert.equal((await store.getSession(id))?.source, "elsewhere", "an existing session keeps its fields");
    });
  });
}
