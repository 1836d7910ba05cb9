/**
 * The work the bindings rows compare, written once for the tinybench suite (bindings.ts) and the
 * CPU-time script (proc/bindings-cpu.ts): per row, a call through a framework binding and the
 * same work through the plain Store.
 *
 * The plain side is what a user would write to get the binding's guarantees, not less: the same
 * rows with the same columns (the framework's item as the row's original, its id as the
 * externalId that makes a retried write store nothing twice, the usage it reports), in one
 * transaction per call as the binding's, and for the Claude SessionStore the storage write time
 * `listSessions` must report (rewritten on each append). Without those it would measure less
 * than the binding must store (see the bench README, "bindings").
 *
 * By design `loadChat(…, { last: 50 })` and `session.getItems(50)` read O(page); the Claude
 * Agent SDK's SessionStore `load` has no limit (the SDK resumes from the whole transcript), so it
 * is O(session): its session here holds 50 entries, so both sides read the same rows. `saveChat`
 * is handed the whole chat: it must at least look at every message's id, where the plain side
 * appends the one new message.
 *
 * The binding side awaits a promise where the binding's API is async (openai-agents, the Claude
 * SessionStore); the plain side is the synchronous Store call a caller would make instead.
 */
import type { Json, MessageInput, Store } from "@sessiondb/core";

/** Messages read back, as in the resume suite. */
export const LAST = 50;
/** Messages of the chat `saveChat` is handed (plus the new one). */
const CHAT = 200;

/** One row: the binding's call and the plain Store's, each returning when its work is done. */
export interface BindingWork {
  /** The metric's name: `bindings.<binding>.<row>`. */
  name: string;
  binding: () => unknown;
  plain: () => unknown;
}

// A variable specifier: the bindings stay external to the bundle, loaded where the suite runs.
const load = (specifier: string): Promise<Record<string, unknown>> => import(specifier);

let serial = 0;
const next = () => `${++serial}`;
const stamp = Date.now().toString(16);

/** Sets up every row's sessions on `store` and gives the rows, in the suite's order. */
export async function bindingsWork(store: Store): Promise<BindingWork[]> {
  return [...(await aiSdk(store)), ...(await openaiAgents(store)), ...(await claudeAgentSdk(store))];
}

function expectLength(what: string, got: number, expected: number): void {
  if (got !== expected) throw new Error(`${what} read ${got}, expected ${expected}`);
}

const QUESTION = "How many lines has README.md?";
const ANSWER = "42 README.md";
const ARGS = '{"file":"README.md"}';

/** The turn's three rows, as every binding's mapping fills them in. */
function plainTurn(
  call: string,
  originals: [Json, Json, Json | null],
  ids: (string | null)[],
  format: string,
) {
  const original = (value: Json | null) => (value === null ? null : { format, value });
  const rows: MessageInput[] = [
    { role: "user", content: QUESTION, original: original(originals[0]) },
    {
      role: "assistant",
      content: null,
      toolCalls: [{ id: call, type: "function", function: { name: "wc", arguments: ARGS } }],
      original: original(originals[1]),
    },
    { role: "tool", content: ANSWER, toolCallId: call, toolName: "wc", original: original(originals[2]) },
  ];
  rows.forEach((row, i) => {
    row.externalId = ids[i] ?? null;
  });
  return rows;
}

async function aiSdk(store: Store): Promise<BindingWork[]> {
  const { loadChat, saveChat } = (await load("@sessiondb/ai-sdk")) as {
    loadChat(store: Store, id: string, options?: { last?: number }): unknown[];
    saveChat(store: Store, chat: { chatId: string; messages: unknown[] }): unknown;
  };
  const text = (role: "user" | "assistant", words: string) => ({
    id: `m${next()}`,
    role,
    parts: [{ type: "text", text: words }],
  });
  const turn = () => {
    const call = `call_${next()}`;
    const messages = [
      text("user", QUESTION),
      {
        id: `m${next()}`,
        role: "assistant",
        parts: [
          {
            type: "tool-wc",
            toolCallId: call,
            state: "output-available",
            input: { file: "README.md" },
            output: ANSWER,
          },
        ],
      },
    ];
    return { call, messages };
  };
  const format = "ai-sdk";
  const newChat = () => {
    const chat = { chatId: `bench-aisdk-chat-${next()}`, messages: [] as unknown[] };
    for (let i = 0; i < CHAT; i++)
      chat.messages.push(text(i % 2 === 0 ? "user" : "assistant", `message ${i} of the chat`));
    saveChat(store, chat);
    return chat;
  };
  const chat = newChat();
  const read = chat.chatId;
  const plain = `bench-aisdk-plain-${stamp}`;
  store.createSession({ id: plain, source: "bench" });
  return [
    // Append a turn: each save is a new chat of one turn (saveChat is handed the whole chat, so
    // a growing chat would measure the save below); the plain side creates its session too.
    {
      name: "bindings.aisdk.append",
      binding: () => saveChat(store, { chatId: `bench-aisdk-${next()}`, messages: turn().messages }),
      plain: () => {
        const { call, messages } = turn();
        const [user, assistant] = messages as unknown as [Json & { id: string }, Json & { id: string }];
        const id = `bench-aisdk-plain-${next()}`;
        const ids = [user.id, assistant.id, `${assistant.id}/tool/${call}`];
        // A save must learn what the chat holds before it writes (see the save row).
        store.transaction((s) => {
          s.getSession(id);
          s.createSession({ id, source: "bench" });
          s.appendMessages(id, plainTurn(call, [user, assistant, null], ids, format));
        });
      },
    },
    {
      name: "bindings.aisdk.load",
      binding: () => expectLength("loadChat", loadChat(store, read, { last: LAST }).length, LAST),
      plain: () => expectLength("getMessages", store.getMessages(read, { last: LAST }).length, LAST),
    },
    // One new message on a chat of CHAT messages: each save is handed the chat with one new
    // message at its end and without its oldest one, so every save looks at the same number of
    // messages however long the row runs (saveChat reads the stored chat from its end back to
    // the last message both hold: the first message is never reached, and the stored chat
    // growing does not change the work).
    {
      name: "bindings.aisdk.save",
      binding: () => {
        chat.messages.push(text("user", "one more question"));
        chat.messages.shift();
        saveChat(store, chat);
      },
      // A save is handed the chat and must write what changed (a message edited or continued
      // under the same id is updated in place): the externalId's idempotency answers "already
      // stored", not "stored unchanged", so a save written by hand reads the chat's last stored
      // row to compare before it appends, in the same transaction.
      plain: () => {
        const message = text("user", "one more question");
        store.transaction((s) => {
          s.getMessages(plain, { last: 1, includeInactive: true });
          s.appendMessages(plain, [
            {
              role: "user",
              content: "one more question",
              externalId: message.id,
              original: { format, value: message },
            },
          ]);
        });
      },
    },
  ];
}

async function openaiAgents(store: Store): Promise<BindingWork[]> {
  const { SessionDbSession } = (await load("@sessiondb/openai-agents")) as {
    SessionDbSession: new (options: {
      store: Store;
      sessionId: string;
    }) => { addItems(items: unknown[]): Promise<void>; getItems(limit?: number): Promise<unknown[]> };
  };
  const items = (): [Json, Json, Json, string] => {
    const callId = `call_${next()}`;
    return [
      { role: "user", content: [{ type: "input_text", text: QUESTION }] },
      { type: "function_call", callId, name: "wc", arguments: ARGS, status: "completed" },
      { type: "function_call_result", callId, name: "wc", status: "completed", output: ANSWER },
      callId,
    ];
  };
  const appending = new SessionDbSession({ store, sessionId: `bench-openai-${next()}` });
  const plain = `bench-openai-plain-${stamp}`;
  store.createSession({ id: plain, source: "bench" });
  const id = `bench-openai-read-${next()}`;
  const reading = new SessionDbSession({ store, sessionId: id });
  for (let i = 0; i < CHAT / 3; i++) await reading.addItems(items().slice(0, 3));
  return [
    {
      name: "bindings.openai.append",
      binding: () => appending.addItems(items().slice(0, 3)),
      // A Session is a list (the same item may come twice): no externalIds, as the binding.
      plain: () => {
        const [user, call, result, callId] = items();
        store.appendMessages(plain, plainTurn(callId, [user, call, result], [], "openai-agents"));
      },
    },
    {
      name: "bindings.openai.load",
      binding: async () => expectLength("getItems", (await reading.getItems(LAST)).length, LAST),
      plain: () => expectLength("getMessages", store.getMessages(id, { last: LAST }).length, LAST),
    },
  ];
}

async function claudeAgentSdk(store: Store): Promise<BindingWork[]> {
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
    const lines = [
      {
        ...base,
        type: "user",
        uuid: u,
        parentUuid: null,
        timestamp,
        message: { role: "user", content: QUESTION },
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
          content: [{ type: "tool_use", id: tool, name: "wc", input: { file: "README.md" } }],
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
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: tool, content: ANSWER }] },
      },
    ];
    return { lines, tool, ids: [u, a, r] };
  };
  const sessionId = (n: string) =>
    `${n.padStart(8, "0").slice(-8)}-bbbb-4ccc-8ddd-${stamp.padStart(12, "0")}`;
  const appendKey = { projectKey: "-srv-app", sessionId: sessionId(next()) };
  const plain = `bench-claude-plain-${stamp}`;
  store.createSession({ id: plain, source: "bench" });

  // load is O(session): a session of LAST entries, so both sides read the same rows.
  const readKey = { projectKey: "-srv-app", sessionId: sessionId(next()) };
  const all: unknown[] = [];
  while (all.length < LAST) all.push(...entries(readKey.sessionId).lines);
  await sdk.append(readKey, all.slice(0, LAST));
  return [
    {
      name: "bindings.claude.append",
      binding: () => sdk.append(appendKey, entries(appendKey.sessionId).lines),
      // The SDK's listSessions needs each session's storage write time: kept in its metadata.
      plain: () => {
        const { lines, tool, ids } = entries(plain);
        const rows = plainTurn(tool, lines as unknown as [Json, Json, Json], ids, "claude-code");
        (rows[1] as MessageInput).usage = {
          model: "claude-sonnet-4-5-20250929",
          provider: "anthropic",
          inputTokens: 12,
          outputTokens: 90,
        };
        store.transaction((s) => {
          s.appendMessages(plain, rows);
          s.updateSession(plain, { metadata: { mtime: Date.now() } });
        });
      },
    },
    {
      name: "bindings.claude.load",
      binding: async () => expectLength("load", (await sdk.load(readKey))?.length ?? 0, LAST),
      plain: () =>
        expectLength("getMessages", store.getMessages(readKey.sessionId, { last: LAST }).length, LAST),
    },
  ];
}
