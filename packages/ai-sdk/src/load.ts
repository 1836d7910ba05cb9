/** loadChat: the UIMessages of a chat, exactly as they were last saved. */
import { InvalidInputError, type Message } from "@sessiondb/core";
import {
  type AnyStore,
  type StoreOperation as Plan,
  perform,
  type StoreResult,
  uiMessageOf,
} from "@sessiondb/formats";
import type { UIMessage } from "ai";
import { isSessionNotFound } from "./not-found.js";

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
): StoreResult<S, M[]> {
  const last = options?.last;
  if (last !== undefined && !(Number.isInteger(last) && last >= 0)) {
    throw new InvalidInputError("loadChat.last", "expected a non-negative integer");
  }
  return perform(store, (s) => (last === undefined ? loadAll<M>(s, chatId) : loadLast<M>(s, chatId, last)));
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
function* rowsOr(read: () => unknown): Plan<Message[]> {
  try {
    return (yield read()) as Message[];
  } catch (error) {
    if (isSessionNotFound(error)) return [];
    throw error;
  }
}

function* loadAll<M>(s: AnyStore, chatId: string): Plan<M[]> {
  return messagesOf<M>(yield* rowsOr(() => s.getMessages(chatId)));
}

/** Pages backwards until `last` messages are in hand. The first page is `last` rows: a chat of
 * text messages is one read of exactly the page. A message's tool rows sit after it, so a chat
 * with tool calls holds fewer messages than rows: the next page is sized by the share of
 * messages among the rows read so far (with a margin), usually one more short read. */
function* loadLast<M>(s: AnyStore, chatId: string, last: number): Plan<M[]> {
  const pages: M[][] = [];
  let found = 0;
  let rowsRead = 0;
  let beforeId: number | undefined;
  let size = Math.max(1, last);
  while (found < last) {
    const rows = yield* rowsOr(() => s.getMessages(chatId, { last: size, beforeId }));
    const messages = messagesOf<M>(rows);
    pages.unshift(messages);
    found += messages.length;
    rowsRead += rows.length;
    if (rows.length < size) break;
    beforeId = rows[0]?.id;
    const missing = last - found;
    size = found === 0 ? size * 2 : Math.ceil((missing * rowsRead * PAGE_MARGIN) / found) + 1;
  }
  const all = pages.flat();
  return all.slice(Math.max(0, all.length - last));
}

/** How much larger than the estimate a further page is read, so one more read usually ends it. */
const PAGE_MARGIN = 1.25;
