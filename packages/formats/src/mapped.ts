/**
 * What every shape module of this package produces: one item of a foreign shape (a Claude Code
 * transcript line, an OpenAI Responses item, an AI SDK UIMessage, a Codex rollout line, an
 * opencode part, a Hermes row) mapped to what sessiondb stores. Written once per shape and used
 * by the framework bindings and the importers alike.
 */
import type { CreateSessionInput, Json, MessageInput } from "@sessiondb/core";

/** Facts about the session an item belongs to, as far as the item tells them. */
export type SessionFacts = Partial<Omit<CreateSessionInput, "metadata">> & {
  metadata?: { [key: string]: Json };
  /** When the producer says the session ended. */
  ended?: { reason: string; at?: number };
};

/** One foreign item as sessiondb rows. */
export interface MappedItem {
  /** The rows the item becomes, in order (usually one). Each carries `externalId` (unique in its
   * session, so a second write stores nothing new) and `original` (the item exactly as given,
   * so nothing the shape carries is lost). An item that is no message (a summary, a snapshot, a
   * type this mapper does not know) is one inactive row (`active: false`): kept and given back,
   * never shown as part of the conversation. */
  messages: MessageInput[];
  /** What the item says about its session (first line: id, cwd, model; later: a title). */
  session?: SessionFacts;
  /** Set when the item's type is not one the mapper knows: the type's name, for counting. It is
   * still stored (an inactive row with its original). */
  unknown?: string;
}

/** A mapper for one session's items in order: stateful where the shape needs it (usage that
 * repeats across lines, tool calls paired with results that come later). */
export interface ItemMapper<Item = unknown> {
  map(item: Item, position: number): MappedItem;
}
