/**
 * saveChat: the AI SDK's `saveChat({ chatId, messages })` over a sessiondb store. The AI SDK
 * hands over the whole chat on every save, and only ever changes its tail (a new response, a
 * response continued, a tool output or approval, an edited message with what followed it
 * dropped). So the stored chat is read from its end back to the last message both hold
 * unchanged, and only the difference is written: new messages appended, changed ones updated in
 * place, dropped ones marked inactive. Messages before that point are taken as stored.
 */
import {
  InvalidInputError,
  type Json,
  type Message,
  type MessageInput,
  type UsageInput,
} from "@sessiondb/core";
import {
  type AnyStore,
  mapUIMessage,
  type StoreOperation as Plan,
  performAtomically,
  type StoreResult,
  toolRowKey,
  uiMessageOf,
} from "@sessiondb/formats";
import type { UIMessage } from "ai";
import { isSessionNotFound } from "./not-found.js";

/** What one `saveChat` wrote. */
export interface SaveChatResult {
  /** Rows appended: new messages and their tool outputs. */
  appended: number;
  /** Rows changed in place (a message that changed, a tool output that arrived or changed). */
  updated: number;
  /** Messages (with their tool rows) no longer in the chat, now inactive: `loadChat` leaves them
   * out, the store keeps them. */
  removed: number;
}

/** The source of a chat's session. */
export const AI_SDK_SOURCE = "ai-sdk";

/** Stored rows read by the first step back from the chat's end: the agreeing message is most
 * often the last one stored, or the one before with its tool rows after it. A read's fixed cost
 * is most of a short one's, so the first is as short as the common case allows; each further
 * step reads twice as many, up to TAIL_PAGE_MAX. */
const TAIL_PAGE_FIRST = 2;
const TAIL_PAGE_MAX = 256;

/**
 * The chat as given, mapped only where a save needs it: every message's id is looked at (to find
 * where the stored chat and this one part, and to refuse a repeated id), but a message is mapped
 * (checked, copied, turned into rows) only when it is compared with a stored one or written. The
 * messages before the point of agreement are taken as stored, unread, so a save of one new
 * message on a long chat costs that message, not the chat.
 */
class Planned {
  readonly #messages: readonly unknown[];
  readonly #mapped: (MessageInput[] | undefined)[] = [];
  readonly #texts: (string | undefined)[] = [];
  /** Each message's index by its id. */
  readonly indexOf = new Map<string, number>();

  constructor(messages: readonly unknown[]) {
    this.#messages = messages;
    messages.forEach((message, i) => {
      const id = (message as { id?: unknown } | null)?.id;
      // Not a message with an id: mapping it names what is wrong (it throws).
      if (typeof id !== "string" || id === "") this.rows(i);
      const earlier = this.indexOf.get(id as string);
      if (earlier !== undefined)
        throw new InvalidInputError(`messages[${i}].id`, `repeats the id of messages[${earlier}]`);
      this.indexOf.set(id as string, i);
    });
  }

  get length(): number {
    return this.#messages.length;
  }

  /** Message `i`'s rows (an InvalidInputError naming `messages[i]` if it is no UIMessage). */
  rows(i: number): MessageInput[] {
    let rows = this.#mapped[i];
    if (rows === undefined) {
      rows = mapUIMessage(this.#messages[i], `messages[${i}]`).messages;
      this.#mapped[i] = rows;
    }
    return rows;
  }

  /** The JSON text of message `i` as it would be stored, for comparing with a stored one. */
  text(i: number): string {
    let text = this.#texts[i];
    if (text === undefined) {
      text = JSON.stringify(this.rows(i)[0]?.original?.value);
      this.#texts[i] = text;
    }
    return text;
  }
}

/**
 * Stores the chat's messages (`messages` as the AI SDK gives them, e.g. from
 * `toUIMessageStream`'s `onEnd`) as session `chatId`, created on first save with source
 * `"ai-sdk"`. Writes only what changed, in one transaction; saving the same messages again
 * writes nothing. A message it writes or compares that is not a UIMessage (wrong types, a
 * cycle, over 16 MiB), or one whose id is missing or repeated, is an InvalidInputError naming
 * `messages[i]`, and nothing is stored.
 */
export function saveChat<S extends AnyStore>(
  store: S,
  chat: { chatId: string; messages: readonly UIMessage[] },
): StoreResult<S, SaveChatResult> {
  if (typeof chat !== "object" || chat === null)
    throw new InvalidInputError("saveChat", "expected { chatId, messages }");
  const { chatId, messages } = chat;
  if (typeof chatId !== "string" || chatId === "")
    throw new InvalidInputError("chatId", "expected a non-empty string");
  if (!Array.isArray(messages)) throw new InvalidInputError("messages", "expected an array of UIMessages");
  const planned = new Planned(messages);
  return performAtomically(store, (s) => savePlan(s, chatId, planned));
}

function* savePlan(s: AnyStore, chatId: string, planned: Planned): Plan<SaveChatResult> {
  const result: SaveChatResult = { appended: 0, updated: 0, removed: 0 };
  // Walk the stored rows from the end to the last message the chat holds unchanged.
  const tail: Message[] = [];
  let agreed = -1;
  let lastId = 0;
  let beforeId: number | undefined;
  let size = TAIL_PAGE_FIRST;
  walk: for (;;) {
    const last = size;
    let page: Message[] = [];
    try {
      page = (yield s.getMessages(chatId, { last, beforeId, includeInactive: true })) as Message[];
    } catch (error) {
      if (!isSessionNotFound(error)) throw error;
    }
    lastId ||= page.at(-1)?.id ?? 0;
    for (let k = page.length - 1; k >= 0; k--) {
      const row = page[k] as Message;
      const message = uiMessageOf(row);
      const i = message && row.active ? planned.indexOf.get(message.id) : undefined;
      if (i !== undefined && JSON.stringify(message) === planned.text(i)) {
        agreed = i;
        break walk;
      }
      tail.push(row);
    }
    if (page.length < size) break;
    beforeId = page[0]?.id;
    size = Math.min(size * 2, TAIL_PAGE_MAX);
  }
  if (lastId === 0) yield s.createSession({ id: chatId, source: AI_SDK_SOURCE });

  const byKey = new Map<string, Message>();
  for (const row of tail) if (row.externalId !== null) byKey.set(row.externalId, row);
  const appends: MessageInput[] = [];
  const kept = new Set<string>();
  for (let i = agreed + 1; i < planned.length; i++) {
    for (const row of planned.rows(i)) {
      const key = row.externalId as string;
      kept.add(key);
      const stored = byKey.get(key);
      if (!stored) appends.push(row);
      else if (!same(stored, row)) {
        yield s.updateMessage(chatId, stored.id, patchOf(row));
        result.updated++;
        const usage = newUsage(stored, row);
        if (usage) yield s.recordUsage(chatId, usage);
      }
    }
  }
  // Stored rows of messages the chat no longer holds (or tool outputs a message lost). A tool
  // row's message sits before it: in the tail, or at or before the point of agreement (kept).
  const owners = new Set<string>();
  for (const row of tail) {
    const message = uiMessageOf(row);
    if (message) owners.add(toolRowKey(message.id, ""));
  }
  for (const row of tail) {
    if (!row.active || row.externalId === null || kept.has(row.externalId)) continue;
    const message = uiMessageOf(row);
    if (message === undefined && !owners.has(ownerPrefix(row))) continue;
    yield s.updateMessage(chatId, row.id, { active: false });
    if (message) result.removed++;
  }
  if (appends.length > 0) {
    const ids = (yield s.appendMessages(chatId, appends)) as number[];
    // An id from before this save: that externalId was stored earlier than the walked tail (an
    // inactive message brought back, or a chat reordered), so the append stored nothing for it.
    for (const [k, id] of ids.entries()) {
      const row = appends[k] as MessageInput;
      if (id > lastId) result.appended++;
      else {
        yield s.updateMessage(chatId, id, patchOf(row));
        result.updated++;
      }
    }
  }
  return result;
}

/**
 * Usage to record for a message saved again: the SDK continues a response (after a tool
 * approval, say) with a new stream and replaces the message's metadata usage with that stream's
 * own, so a usage that differs from the stored message's is a new stream's, counted in full.
 */
function newUsage(stored: Message, row: MessageInput): UsageInput | undefined {
  const before = uiMessageOf(stored);
  if (!row.usage || !before) return undefined;
  const had = mapUIMessage(before, "stored").messages[0]?.usage;
  return JSON.stringify(had ?? null) === JSON.stringify(row.usage) ? undefined : row.usage;
}

/** The `<message id>/tool/` a tool row's key begins with: its key less its call id. */
function ownerPrefix(row: Message): string {
  const key = row.externalId ?? "";
  const callId = row.toolCallId ?? "";
  return row.role === "tool" && key.endsWith(callId) ? key.slice(0, key.length - callId.length) : "";
}

/** The columns a save may change, as a patch (role, timestamp and usage stay as first stored). */
function patchOf(row: MessageInput) {
  return {
    content: row.content ?? null,
    toolName: row.toolName ?? null,
    toolCallId: row.toolCallId ?? null,
    toolCalls: row.toolCalls ?? null,
    reasoning: row.reasoning ?? null,
    metadata: row.metadata ?? null,
    original: row.original ?? null,
    active: true,
  };
}

function same(stored: Message, row: MessageInput): boolean {
  const json = (value: Json | undefined) => JSON.stringify(value ?? null);
  return (
    stored.active &&
    json(stored.original?.value) === json(row.original?.value) &&
    json(stored.content) === json(row.content) &&
    json(stored.metadata) === json(row.metadata)
  );
}
