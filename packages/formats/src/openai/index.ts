/**
 * The OpenAI Agents SDK's items (`AgentInputItem`) as sessiondb rows: what
 * `@sessiondb/openai-agents` stores, under the original format name `"openai-agents"`.
 */
import type { Json } from "@sessiondb/core";
import type { ItemMapper } from "../mapped.js";
import { OpenAIItems } from "./items.js";

/** The name the items' originals are stored under. */
export const OPENAI_AGENTS_FORMAT = "openai-agents";

/**
 * A mapper for one session's Agents SDK items in order. Each item's `externalId` is its `id`, or
 * `item:<position>` for an item without one (user input, tool results carry none).
 */
export function openaiAgentsMapper(): ItemMapper<unknown> {
  const items = new OpenAIItems();
  return {
    map(item, position) {
      const id = (item as { id?: unknown } | null)?.id;
      const externalId = typeof id === "string" && id !== "" ? id : `item:${position}`;
      return items.map(item, { externalId, original: { format: OPENAI_AGENTS_FORMAT, value: item as Json } });
    },
  };
}

export type { ItemPlace } from "./items.js";
export { OpenAIItems } from "./items.js";
