/** The way back: the UIMessage a stored row holds, exactly as it was saved. */
import type { Message } from "@sessiondb/core";
import { AI_SDK_FORMAT, type UIMessageJson } from "./ui-message.js";

/** The UIMessage `row` was saved from, or undefined for a row that holds none (a tool row, a row
 * another writer appended). */
export function uiMessageOf(row: Message): UIMessageJson | undefined {
  const original = row.original;
  return original?.format === AI_SDK_FORMAT ? (original.value as unknown as UIMessageJson) : undefined;
}
