/** loadChat: the UIMessages of a chat, exactly as they were last saved. */
import { InvalidInputError, type Message } from "@sessiondb/core";
import { uiMessageOf } from "@sessiondb/formats";
import type { UIMessage } from "ai";
import { type AnyStore, type Call, isSessionNotFound, type Plan, type Result, run } from "./plan.js";

/** Options of `loadChat`. */
export interface LoadChatOptions {
  /** Only the last this many messages (still oldest first): reads O(last) rows whatever the
   * chat's length. Default: the whole chat. */
  last?: number;
}

/**
 * The chat's UIMessages in order, deep-equal to the ones `saveChat` stored last (a chat never
 * saved: `[]`). On a sync Store the messages, on an AsyncStore a promise of them.
 */
export function loadChat<M extends UIMessage = UIMessage, S extends AnyStore = AnyStore>(
  store: S,
  chatId: string,
  options?: LoadChatOptions,
): Result<S, M[]> {
  const last = options?.last;
  if (last !== undefined && !(Number.isInteger(last) && last >= 0)) {
    throw new InvalidInputError("loadChat.last", "expected a non-negative integer");
  }
  return run(store, last === undefined ? loadAll(chatId) : loadLast(chatId, last)) as Result<S, M[]>;
}

function messagesOf<M>(rows: readonly Message[]): M[] {
  const out: M[] = [];
  for (const row of rows) {
    const message = uiMessageOf(row);
    if (message) out.push(message as unknown as M);
  }
  return out;
}

/** The rows `read` gives; none for a chat never saved. */
function* rowsOr(read: Call): Plan<Message[]> {
  try {
    return (yield read) as Message[];
  } catch (error) {
    if (isSessionNotFound(error)) return [];
    throw error;
  }
}

function* loadAll<M>(chatId: string): Plan<M[]> {
  return messagesOf<M>(yield* rowsOr((s) => s.getMessages(chatId)));
}

/** Pages backwards until `last` messages are in hand: a message's tool rows sit after it, so
 * pages of twice the count usually take one read. */
function* loadLast<M>(chatId: string, last: number): Plan<M[]> {
  const pages: M[][] = [];
  let found = 0;
  let beforeId: number | undefined;
  const size = Math.max(16, last * 2);
  while (found < last) {
    const rows = yield* rowsOr((s) => s.getMessages(chatId, { last: size, beforeId }));
    const messages = messagesOf<M>(rows);
    pages.unshift(messages);
    found += messages.length;
    if (rows.length < size) break;
    beforeId = rows[0]?.id;
  }
  const all = pages.flat();
  return all.slice(Math.max(0, all.length - last));
}
