/**
 * The raw side of an append, shared by the file and server benches: the statements the store
 * sends for one append (session counters, then one INSERT per message) and a fixed sample of
 * realistic messages with string content, so the raw side can insert them as they are.
 */
import type { MessageInput } from "@sessiondb/core";
import { generateCorpus } from "./corpus/index.js";

import { RAW_INSERT_MESSAGE_SQL, RAW_UPDATE_SESSION_SQL } from "./proc/append-sql.js";

export { RAW_INSERT_MESSAGE_SQL, RAW_UPDATE_SESSION_SQL };

/** The parameters of RAW_UPDATE_SESSION_SQL for appending `messages` at `t`. */
export function rawUpdateArgs(
  sessionId: string,
  messages: MessageInput[],
  t: number,
): Array<string | number> {
  return [messages.length, messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0), t, t, sessionId];
}

/** The parameters of RAW_INSERT_MESSAGE_SQL for `m` (string or null content only). */
export function rawInsertArgs(sessionId: string, m: MessageInput, t: number): Array<string | number | null> {
  return [
    sessionId,
    m.role,
    (m.content as string | null) ?? null,
    null,
    m.toolName ?? null,
    m.toolCallId ?? null,
    m.toolCalls ? JSON.stringify(m.toolCalls) : null,
    m.timestamp ?? t,
    m.tokenCount ?? null,
    m.finishReason ?? null,
    m.reasoning ?? null,
    null,
  ];
}

/** `count` corpus messages whose content is a string (or null, with `allowNull`). */
export function sampleMessages(count: number, seed: number, allowNull: boolean): MessageInput[] {
  const out: MessageInput[] = [];
  for (const item of generateCorpus({ seed, messages: count * 3 })) {
    for (const m of item.messages)
      if (typeof m.content === "string" || (allowNull && m.content === null)) out.push(m);
  }
  return out.slice(0, count);
}
