/**
 * The three framework bindings against the same work through the plain Store, on the store the
 * target opens (each binding is plain JS over any store). Per binding: append one turn (a user
 * message, an assistant message with one tool call, its result) — through the binding vs
 * `store.appendMessages` of the same three rows, each side into a session of its own; and load
 * the last 50 — through the binding vs `store.getMessages(id, { last: 50 })` of the same
 * session. For the AI SDK also `saveChat` of a ~200-message chat with one new message vs
 * `store.appendMessage` of that message.
 *
 * By design `loadChat(…, { last: 50 })` and `session.getItems(50)` read O(page); the Claude
 * Agent SDK's SessionStore `load` has no limit (the SDK resumes from the whole transcript), so it
 * is O(session): its session here holds 50 entries, so both sides read the same rows. `saveChat`
 * is O(chat): it is handed the whole chat and compares it with what is stored.
 *
 * The binding side awaits a promise where the binding's API is async (openai-agents, the Claude
 * SessionStore); the plain side is the synchronous Store call a caller would make instead.
 */
import type { MessageInput, Store } from "@sessiondb/core";
import type { Engine } from "../engine.js";
import { storeVsRawInProcess } from "./cold.js";
import type { SuiteContext } from "./context.js";

/** Messages read back, as in the resume suite. */
const LAST = 50;
/** Messages of the chat `saveChat` is handed (plus the new one). */
const CHAT = 200;
/** Messages the chat grows by before a new one is started. */
const GROWTH = 50;

// A variable specifier: the bindings stay external to the bundle, loaded where the suite runs.
const load = (specifier: string): Promise<Record<string, unknown>> => import(specifier);

let serial = 0;
const next = () => `${++serial}`;

/** The turn as plain Store rows. */
function plainTurn(): MessageInput[] {
  const call = `call_${next()}`;
  return [
    { role: "user", content: "How many lines has README.md?" },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: call, name: "wc", arguments: '{"file":"README.md"}' }],
    },
    { role: "tool", content: "42 README.md", toolCallId: call, toolName: "wc" },
  ];
}

export async function bindingsSuite(engine: Engine, ctx: SuiteContext): Promise<void> {
  const store = engine.openStore(ctx.db);
  try {
    const plain = `bench-bindings-plain-${Date.now()}`;
    store.createSession({ id: plain, source: "bench" });
    await aiSdk(ctx, store, plain);
    await openaiAgents(ctx, store, plain);
    await claudeAgentSdk(ctx, store, plain);
  } finally {
    store.close();
  }
}

function expectLength(what: string, got: number, expected: number): void {
  if (got !== expected) throw new Error(`${what} read ${got}, expected ${expected}`);
}

async function aiSdk(ctx: SuiteContext, store: Store, plain: string): Promise<void> {
  const { loadChat, saveChat } = (await load("@sessiondb/ai-sdk")) as {
    loadChat(store: Store, id: string, options?: { last?: number }): unknown[];
    saveChat(store: Store, chat: { chatId: string; messages: unknown[] }): unknown;
  };
  const text = (role: "user" | "assistant", words: string) => ({
    id: `m${next()}`,
    role,
    parts: [{ type: "text", text: words }],
  });
  const turn = () => [
    text("user", "How many lines has README.md?"),
    {
      id: `m${next()}`,
      role: "assistant",
      parts: [
        {
          type: "tool-wc",
          toolCallId: `call_${next()}`,
          state: "output-available",
          input: { file: "README.md" },
          output: "42 README.md",
        },
      ],
    },
  ];
  // Append a turn: each save is a new chat of one turn (saveChat is handed the whole chat, so a
  // growing chat would measure the save below), and the plain side creates a session too.
  await storeVsRawInProcess(ctx, "bindings.aisdk.append", {
    store: () => saveChat(store, { chatId: `bench-aisdk-${next()}`, messages: turn() }),
    raw: () => {
      const id = `bench-aisdk-plain-${next()}`;
      store.createSession({ id, source: "bench" });
      store.appendMessages(id, plainTurn());
    },
  });

  const newChat = () => {
    const chat = { chatId: `bench-aisdk-chat-${next()}`, messages: [] as unknown[] };
    for (let i = 0; i < CHAT; i++)
      chat.messages.push(text(i % 2 === 0 ? "user" : "assistant", `message ${i} of the chat`));
    saveChat(store, chat);
    return chat;
  };
  let chat = newChat();
  const read = chat.chatId;
  await storeVsRawInProcess(ctx, "bindings.aisdk.load", {
    store: () => expectLength("loadChat", loadChat(store, read, { last: LAST }).length, LAST),
    raw: () => expectLength("getMessages", store.getMessages(read, { last: LAST }).length, LAST),
  });

  // One new message on a chat of CHAT to CHAT + GROWTH messages: it grows by one per save, as a
  // live chat does, and a new chat is started past that (one call in GROWTH: the p50 ignores it)
  // so the O(chat) save measures the same size of chat however long tinybench runs.
  await storeVsRawInProcess(ctx, "bindings.aisdk.save", {
    store: () => {
      if (chat.messages.length >= CHAT + GROWTH) chat = newChat();
      chat.messages.push(text("user", "one more question"));
      saveChat(store, chat);
    },
    raw: () => store.appendMessage(plain, { role: "user", content: "one more question" }),
  });
}

async function openaiAgents(ctx: SuiteContext, store: Store, plain: string): Promise<void> {
  const { SessionDbSession } = (await load("@sessiondb/openai-agents")) as {
    SessionDbSession: new (options: {
      store: Store;
      sessionId: string;
    }) => { addItems(items: unknown[]): Promise<void>; getItems(limit?: number): Promise<unknown[]> };
  };
  const items = () => {
    const callId = `call_${next()}`;
    return [
      { role: "user", content: [{ type: "input_text", text: "How many lines has README.md?" }] },
      { type: "function_call", callId, name: "wc", arguments: '{"file":"README.md"}', status: "completed" },
      { type: "function_call_result", callId, name: "wc", status: "completed", output: "42 README.md" },
    ];
  };
  const appending = new SessionDbSession({ store, sessionId: `bench-openai-${next()}` });
  await storeVsRawInProcess(ctx, "bindings.openai.append", {
    store: () => appending.addItems(items()),
    raw: () => store.appendMessages(plain, plainTurn()),
  });

  const id = `bench-openai-read-${next()}`;
  const reading = new SessionDbSession({ store, sessionId: id });
  for (let i = 0; i < CHAT / 3; i++) await reading.addItems(items());
  await storeVsRawInProcess(ctx, "bindings.openai.load", {
    store: async () => expectLength("getItems", (await reading.getItems(LAST)).length, LAST),
    raw: () => expectLength("getMessages", store.getMessages(id, { last: LAST }).length, LAST),
  });
}

async function claudeAgentSdk(ctx: SuiteContext, store: Store, plain: string): Promise<void> {
  const { SessionDbSessionStore } = (await load("@sessiondb/claude-agent-sdk")) as {
    SessionDbSessionStore: new (options: {
      store: Store;
    }) => {
      append(key: object, entries: unknown[]): Promise<void>;
      load(key: object): Promise<unknown[] | null>;
    };
  };
  const sdk = new SessionDbSessionStore({ store });
  const entries = (sessionId: string) => {
    const base = { sessionId, cwd: "/srv/app", isSidechain: false, userType: "external" };
    const uuid = () => `00000000-0000-4000-8000-${next().padStart(12, "0")}`;
    const [u, a, r] = [uuid(), uuid(), uuid()];
    const tool = `toolu_${next()}`;
    const timestamp = "2026-05-01T10:00:00.000Z";
    return [
      {
        ...base,
        type: "user",
        uuid: u,
        parentUuid: null,
        timestamp,
        message: { role: "user", content: "How many lines has README.md?" },
      },
      {
        ...base,
        type: "assistant",
        uuid: a,
        parentUuid: u,
        timestamp,
        message: {
          id: `msg_${next()}`,
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5-20250929",
          content: [{ type: "tool_use", id: tool, name: "Bash", input: { command: "wc -l README.md" } }],
          stop_reason: "tool_use",
          usage: { input_tokens: 12, output_tokens: 90 },
        },
      },
      {
        ...base,
        type: "user",
        uuid: r,
        parentUuid: a,
        timestamp,
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: tool, content: "42 README.md" }],
        },
      },
    ];
  };
  const sessionId = (n: string) =>
    `${n.padStart(8, "0").slice(-8)}-bbbb-4ccc-8ddd-${Date.now().toString(16).padStart(12, "0")}`;
  const appendKey = { projectKey: "-srv-app", sessionId: sessionId(next()) };
  await storeVsRawInProcess(ctx, "bindings.claude.append", {
    store: () => sdk.append(appendKey, entries(appendKey.sessionId)),
    raw: () => store.appendMessages(plain, plainTurn()),
  });

  // load is O(session): a session of LAST entries, so both sides read the same rows.
  const readKey = { projectKey: "-srv-app", sessionId: sessionId(next()) };
  const all: unknown[] = [];
  while (all.length < LAST) all.push(...entries(readKey.sessionId));
  await sdk.append(readKey, all.slice(0, LAST));
  await storeVsRawInProcess(ctx, "bindings.claude.load", {
    store: async () => expectLength("load", (await sdk.load(readKey))?.length ?? 0, LAST),
    raw: () => expectLength("getMessages", store.getMessages(readKey.sessionId, { last: LAST }).length, LAST),
  });
}
