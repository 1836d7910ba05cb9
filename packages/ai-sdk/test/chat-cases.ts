/**
 * @sessiondb/ai-sdk against the real AI SDK, written once and run on every store (each entry
 * file passes its runner's describe/it and a way to open a store): chats driven through
 * `streamText` and the SDK's mock model, saved from `toUIMessageStream`'s `onEnd`, reloaded,
 * validated with `validateUIMessages` and continued; what the rows hold for search, `serve` and
 * usage; saves that write only the difference; bad input.
 */
import assert from "node:assert/strict";
import { InvalidInputError } from "@sessiondb/core";
import { type UIMessage, validateUIMessages } from "ai";
import { type AnyStore, loadChat, saveChat } from "../src/index.js";
import { tools, turn } from "./support/chat.js";
import { countingStore } from "./support/counting-store.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>) => void;
/** Opens a fresh, empty store; `close` closes it (and removes what it made). */
export type OpenStore = () => Promise<{ store: AnyStore; close(): Promise<void> }>;

let chats = 0;
const newChatId = () => `chat-${process.pid}-${++chats}`;

const user = (id: string, text: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const assistant = (id: string, parts: UIMessage["parts"], metadata?: unknown): UIMessage => ({
  id,
  role: "assistant",
  parts,
  ...(metadata === undefined ? {} : { metadata }),
});

/** `value` as JSON holds it: the SDK leaves keys set to `undefined` in its messages, which no
 * JSON store (the SDK's own file example included) keeps; every other key and value must come
 * back deep-equal. */
const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value));

/** Every row of the chat, inactive ones included. */
async function rowsOf(store: AnyStore, chatId: string) {
  return await store.getMessages(chatId, { includeInactive: true });
}

async function invalid(action: () => unknown): Promise<InvalidInputError> {
  try {
    await action();
  } catch (error) {
    assert.ok(error instanceof InvalidInputError, `expected an InvalidInputError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected an InvalidInputError");
}

export function chatCases(describe: Suite, it: Test, open: OpenStore): void {
  describe("a chat through streamText and toUIMessageStream", () => {
    it("is saved at the end of each stream (one aborted midway), reloads exactly, validates and continues", async () => {
      const { store, close } = await open();
      try {
        const chatId = newChatId();
        const save = (messages: UIMessage[]) => saveChat(store, { chatId, messages });
        const first = await turn({
          history: await loadChat(store, chatId),
          user: "What is the weather in Paris?",
          script: [
            {
              reasoning: "The user wants weather; call the tool.",
              calls: [
                { id: "call-1", tool: "weather", input: { city: "Paris" } },
                { id: "call-2", tool: "fail", input: { why: "demo" } },
              ],
            },
            { text: "It is sunny and clear in Paris." },
          ],
          save,
        });
        assert.equal(first.isAborted, false);
        let loaded = await loadChat(store, chatId);
        assert.deepEqual(loaded, asJson(first.messages));
        await validateUIMessages({ messages: loaded, tools });

        // Aborted after two text deltas: onEnd still gives the partial response, which is saved.
        const second = await turn({
          history: loaded,
          user: "And tomorrow?",
          script: [{ text: "Tomorrow will be rainy in the whole of Paris region.", hangAfter: 2 }],
          save,
          abortAfter: 2,
        });
        assert.equal(second.isAborted, true);
        loaded = await loadChat(store, chatId);
        assert.deepEqual(loaded, asJson(second.messages));
        const partial = loaded.at(-1);
        assert.equal(partial?.role, "assistant");
        assert.deepEqual(
          partial?.parts.filter((part) => part.type === "text").map((part) => part.text),
          ["Tomorrow will "],
          "the partial text is kept",
        );

        const third = await turn({
          history: await validateUIMessages({ messages: loaded, tools }),
          user: "Thanks! Rome?",
          script: [
            { calls: [{ id: "call-3", tool: "weather", input: { city: "Rome" } }] },
            { text: "Rome is sunny too." },
          ],
          save,
        });
        loaded = await loadChat(store, chatId);
        assert.deepEqual(loaded, asJson(third.messages));
        assert.equal(loaded.length, 6);
        await validateUIMessages({ messages: loaded, tools });

        // The rows sessiondb's readers use: text, reasoning, calls paired with their results.
        const rows = await rowsOf(store, chatId);
        const firstAnswer = rows.find((row) => row.externalId === first.messages[1]?.id);
        assert.equal(firstAnswer?.role, "assistant");
        assert.equal(firstAnswer?.content, "It is sunny and clear in Paris.");
        assert.equal(firstAnswer?.reasoning, "The user wants weather; call the tool.");
        assert.deepEqual(
          firstAnswer?.toolCalls?.map((call) => (call as { id: string }).id),
          ["call-1", "call-2"],
        );
        const results = rows.filter((row) => row.role === "tool");
        assert.deepEqual(
          results.map((row) => [row.toolCallId, row.toolName]),
          [
            ["call-1", "weather"],
            ["call-2", "fail"],
            ["call-3", "weather"],
          ],
        );
        assert.deepEqual(JSON.parse(String(results[0]?.content)), {
          city: "Paris",
          celsius: 15,
          sky: "clear",
        });
        assert.deepEqual(results[1]?.metadata, { isError: true });
        assert.match(String(results[1]?.content), /failed on purpose: demo/);

        const session = await store.getSession(chatId);
        assert.equal(session?.source, "ai-sdk");
        assert.equal(session?.messageCount, 9);
        assert.equal(session?.toolCallCount, 3);
        const hits = (await store.search("rainy", { sessionId: chatId })).hits;
        assert.equal(hits.length, 0, "the aborted text was cut before 'rainy'");
        const sunny = (await store.search("sunny", { sessionId: chatId })).hits;
        assert.equal(sunny.length, 2);
        // Usage from the metadata the app set at the finish part (the aborted turn has none).
        const usage = await store.getUsage(chatId);
        assert.equal(usage.length, 1);
        assert.equal(usage[0]?.model, "mock-1");
        assert.equal(usage[0]?.provider, "mock-provider");
        assert.equal(usage[0]?.callCount, 2);
        // Two steps per answered turn, 100+n input (2 of them cached) and 10+n output each.
        assert.equal(usage[0]?.inputTokens, 199 + 199);
        assert.equal(usage[0]?.cacheReadTokens, 4 + 4);
        assert.equal(usage[0]?.outputTokens, 23 + 23);
      } finally {
        await close();
      }
    });
    it("a tool approval: the same message saved waiting, approved, then continued by a second stream", async () => {
      const { store, close } = await open();
      try {
        const chatId = newChatId();
        const save = (messages: UIMessage[]) => saveChat(store, { chatId, messages });
        const asked = await turn({
          history: [],
          user: "Weather in Oslo?",
          script: [{ calls: [{ id: "call-9", tool: "weather", input: { city: "Oslo" } }] }],
          approve: ["weather"],
          save,
        });
        const waiting = asked.messages.at(-1);
        const part = waiting?.parts.find((p) => p.type === "tool-weather");
        assert.equal(part && "state" in part ? part.state : undefined, "approval-requested");
        assert.equal((await rowsOf(store, chatId)).filter((row) => row.role === "tool").length, 0);

        // The client approves, as useChat's addToolApprovalResponse does, and sends the chat back.
        const approved = (await loadChat(store, chatId)).map((message) => ({
          ...message,
          parts: message.parts.map((p) =>
            p.type === "tool-weather" && p.state === "approval-requested"
              ? { ...p, state: "approval-responded" as const, approval: { ...p.approval, approved: true } }
              : p,
          ),
        })) as UIMessage[];
        assert.deepEqual(await save(approved), { appended: 0, updated: 1, removed: 0 });
        const messageRow = (await rowsOf(store, chatId)).find((row) => row.externalId === waiting?.id);

        const continued = await turn({
          history: await validateUIMessages({ messages: await loadChat(store, chatId), tools }),
          script: [{ text: "Oslo is cold today.", tokens: { input: 150, output: 20 } }],
          approve: ["weather"],
          save,
        });
        assert.equal(continued.messages.length, 2, "the answer continued the same message");
        assert.deepEqual(await loadChat(store, chatId), asJson(continued.messages));
        const rows = await rowsOf(store, chatId);
        assert.equal(
          rows.find((row) => row.externalId === waiting?.id)?.id,
          messageRow?.id,
          "updated in place",
        );
        const result = rows.find((row) => row.role === "tool");
        assert.equal(result?.toolCallId, "call-9");
        assert.deepEqual(JSON.parse(String(result?.content)), { city: "Oslo", celsius: 14, sky: "clear" });
        // Each stream's usage once: the first at the approval request, the second when it continued.
        const [usage] = await store.getUsage(chatId);
        assert.equal(usage?.callCount, 2);
        assert.equal(usage?.inputTokens, 99 + 148);
        assert.equal(usage?.outputTokens, 11 + 20);
        // Saving the continued chat again changes nothing, counts included.
        assert.deepEqual(await save(continued.messages), { appended: 0, updated: 0, removed: 0 });
        assert.equal((await store.getUsage(chatId))[0]?.callCount, 2);
      } finally {
        await close();
      }
    });
  });

  describe("saveChat writes only the difference", () => {
    it("saving the same messages twice stores nothing new; one new message writes one row", async () => {
      const { store, close } = await open();
      try {
        const chatId = newChatId();
        const messages = [user("u1", "hello"), assistant("a1", [{ type: "text", text: "hi there" }])];
        assert.deepEqual(await saveChat(store, { chatId, messages }), {
          appended: 2,
          updated: 0,
          removed: 0,
        });
        assert.deepEqual(await saveChat(store, { chatId, messages }), {
          appended: 0,
          updated: 0,
          removed: 0,
        });
        assert.equal(await store.messageCount(chatId), 2);
        const next = [...messages, user("u2", "how are you?")];
        assert.deepEqual(await saveChat(store, { chatId, messages: next }), {
          appended: 1,
          updated: 0,
          removed: 0,
        });
        assert.equal(await store.messageCount(chatId), 3);
        assert.deepEqual(await loadChat(store, chatId), next);
      } finally {
        await close();
      }
    });

    it("a message that changed (a tool output arrived) is updated in place, its output appended", async () => {
      const { store, close } = await open();
      try {
        const chatId = newChatId();
        const call = { type: "tool-weather", toolCallId: "c1", input: { city: "Oslo" } } as const;
        const waiting = [user("u1", "Oslo?"), assistant("a1", [{ ...call, state: "input-available" }])];
        await saveChat(store, { chatId, messages: waiting });
        const before = await rowsOf(store, chatId);
        const answered = [
          user("u1", "Oslo?"),
          assistant("a1", [
            { ...call, state: "output-available", output: { celsius: -3 } },
            { type: "text", text: "It is cold in Oslo." },
          ]),
        ];
        assert.deepEqual(await saveChat(store, { chatId, messages: answered }), {
          appended: 1,
          updated: 1,
          removed: 0,
        });
        const after = await rowsOf(store, chatId);
        assert.deepEqual(
          after.slice(0, 2).map((row) => row.id),
          before.map((row) => row.id),
          "the same rows, changed in place",
        );
        assert.equal(after[1]?.content, "It is cold in Oslo.");
        assert.equal(after[2]?.toolCallId, "c1");
        assert.deepEqual(await loadChat(store, chatId), answered);
        assert.equal((await store.search("cold", { sessionId: chatId })).hits.length, 1);
      } finally {
        await close();
      }
    });

    it("a message the chat dropped (regenerate) is kept inactive and left out of loadChat", async () => {
      const { store, close } = await open();
      try {
        const chatId = newChatId();
        const call = {
          type: "dynamic-tool",
          toolName: "lookup",
          toolCallId: "d1",
          input: { q: "x" },
        } as const;
        const q = user("u1", "question");
        await saveChat(store, {
          chatId,
          messages: [q, assistant("a1", [{ ...call, state: "output-available", output: "found" }])],
        });
        const regenerated = [q, assistant("a2", [{ type: "text", text: "a better answer" }])];
        assert.deepEqual(await saveChat(store, { chatId, messages: regenerated }), {
          appended: 1,
          updated: 0,
          removed: 1,
        });
        assert.deepEqual(await loadChat(store, chatId), regenerated);
        const rows = await rowsOf(store, chatId);
        assert.deepEqual(
          rows.map((row) => [row.externalId, row.active]),
          [
            ["u1", true],
            ["a1", false],
            ["a1/tool/d1", false],
            ["a2", true],
          ],
        );
        assert.equal((await store.getSession(chatId))?.messageCount, 2);

        // Back to the first answer: its rows come back to life, the second one's go.
        const first = [q, assistant("a1", [{ ...call, state: "output-available", output: "found" }])];
        assert.deepEqual(await saveChat(store, { chatId, messages: first }), {
          appended: 0,
          updated: 2,
          removed: 1,
        });
        assert.deepEqual(await loadChat(store, chatId), first);
        assert.deepEqual(
          (await rowsOf(store, chatId)).map((row) => row.active),
          [true, true, true, false],
        );
      } finally {
        await close();
      }
    });

    it("loadChat { last } gives the chat's last messages; unknown part types come back as given", async () => {
      const { store, close } = await open();
      try {
        const chatId = newChatId();
        const messages: UIMessage[] = [];
        for (let i = 0; i < 40; i++) {
          messages.push(user(`u${i}`, `question ${i}`));
          messages.push(
            assistant(`a${i}`, [
              {
                type: "tool-weather",
                toolCallId: `c${i}`,
                state: "output-available",
                input: { city: "X" },
                output: i,
              },
              { type: "text", text: `answer ${i}` },
              { type: "future-part", payload: { nested: [1, "two"] } } as never,
              { type: "data-weather", id: `w${i}`, data: { celsius: i } },
            ]),
          );
        }
        await saveChat(store, { chatId, messages });
        assert.deepEqual(await loadChat(store, chatId, { last: 3 }), messages.slice(-3));
        assert.deepEqual(await loadChat(store, chatId, { last: 0 }), []);
        assert.deepEqual(await loadChat(store, chatId, { last: 500 }), messages);
        assert.deepEqual(await loadChat(store, chatId), messages);
        assert.deepEqual(await loadChat(store, "never-saved"), []);
      } finally {
        await close();
      }
    });
  });

  describe("cost in proportion to the work", () => {
    it("on a long chat, saving one new message reads one short page and writes one row; loadChat { last } reads O(last)", async () => {
      const { store: real, close } = await open();
      try {
        const chatId = newChatId();
        const messages: UIMessage[] = [];
        for (let i = 0; i < 150; i++) {
          messages.push(user(`u${i}`, `question ${i}`));
          messages.push(
            assistant(`a${i}`, [
              {
                type: "tool-weather",
                toolCallId: `c${i}`,
                state: "output-available",
                input: { city: "X" },
                output: i,
              },
              { type: "text", text: `answer ${i}` },
            ]),
          );
        }
        await saveChat(real, { chatId, messages });
        const { store, counts } = countingStore(real);
        const next = [...messages, user("u-new", "one more")];
        assert.deepEqual(await saveChat(store, { chatId, messages: next }), {
          appended: 1,
          updated: 0,
          removed: 0,
        });
        assert.deepEqual(counts, { reads: 1, rowsRead: 2, appended: 1, updated: 0 });

        const { store: reading, counts: read } = countingStore(real);
        assert.deepEqual(await loadChat(reading, chatId, { last: 50 }), next.slice(-50));
        // 50 messages are 75 rows here (each answer has a tool row): a first page of 50 rows,
        // then one sized by the share of messages in it; O(last), not O(chat).
        assert.ok(read.reads <= 2, `${read.reads} reads`);
        assert.ok(read.rowsRead >= 75 && read.rowsRead <= 100, `${read.rowsRead} rows read`);

        // A chat of text messages only: one read of exactly the page.
        const textId = newChatId();
        const texts = Array.from({ length: 120 }, (_, i) => user(`t${i}`, `message ${i}`));
        await saveChat(real, { chatId: textId, messages: texts });
        const { store: textReading, counts: textRead } = countingStore(real);
        assert.deepEqual(await loadChat(textReading, textId, { last: 50 }), texts.slice(-50));
        assert.deepEqual(textRead, { reads: 1, rowsRead: 50, appended: 0, updated: 0 });
      } finally {
        await close();
      }
    });
  });

  describe("bad input", () => {
    it("is an InvalidInputError naming the message, and nothing of that save is stored", async () => {
      const { store, close } = await open();
      try {
        const chatId = newChatId();
        const good = user("u1", "fine");
        const cycle: Record<string, unknown> = { a: 1 };
        cycle.self = cycle;
        const cases: [unknown, string][] = [
          [{ id: "m", role: 42, parts: [] }, "messages[1].role"],
          [{ id: "m", role: "user", parts: "text" }, "messages[1].parts"],
          [{ id: "", role: "user", parts: [] }, "messages[1].id"],
          [{ id: "m", role: "user", parts: [{ text: "no type" }] }, "messages[1].parts[0]"],
          [{ id: "m", role: "user", parts: [], metadata: cycle }, "messages[1].metadata.self"],
          [
            { id: "m", role: "user", parts: [{ type: "text", text: "x".repeat(50 * 1024 * 1024) }] },
            "messages[1].parts[0].text",
          ],
          [
            { id: "m", role: "user", parts: [{ type: "tool-x", state: "input-available" }] },
            "messages[1].parts[0].toolCallId",
          ],
          [
            { id: "m", role: "user", parts: [], metadata: { when: new Date(0) } },
            "messages[1].metadata.when",
          ],
          [good, "messages[1].id"],
        ];
        for (const [bad, field] of cases) {
          const error = await invalid(() => saveChat(store, { chatId, messages: [good, bad as UIMessage] }));
          assert.equal(error.field, field);
          assert.equal(await store.getSession(chatId), undefined, `nothing stored for ${field}`);
        }
        assert.equal((await invalid(() => saveChat(store, { chatId: "", messages: [] }))).field, "chatId");
        assert.equal(
          (await invalid(() => saveChat(store, { chatId, messages: {} as never }))).field,
          "messages",
        );
        assert.equal((await invalid(() => loadChat(store, chatId, { last: -1 }))).field, "loadChat.last");
      } finally {
        await close();
      }
    });

    it("on a saved chat: a bad new message or a repeated id anywhere is refused, and nothing is stored", async () => {
      const { store, close } = await open();
      try {
        const chatId = newChatId();
        const saved = [user("u1", "one"), user("u2", "two"), user("u3", "three")];
        await saveChat(store, { chatId, messages: saved });
        const rows = async () => (await rowsOf(store, chatId)).length;
        const bad = { id: "u4", role: "user", parts: "text" } as unknown as UIMessage;
        const error = await invalid(() => saveChat(store, { chatId, messages: [...saved, bad] }));
        assert.equal(error.field, "messages[3].parts");
        const repeated = await invalid(() =>
          saveChat(store, { chatId, messages: [...saved, user("u1", "again"), user("u5", "five")] }),
        );
        assert.equal(repeated.field, "messages[3].id");
        assert.equal(await rows(), 3, "nothing of either save stored");
        // The messages before the last one stored unchanged are taken as stored, not read again.
        assert.deepEqual(await saveChat(store, { chatId, messages: [...saved, user("u6", "six")] }), {
          appended: 1,
          updated: 0,
          removed: 0,
        });
      } finally {
        await close();
      }
    });
  });
}
