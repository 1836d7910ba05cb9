/**
 * A Hermes session's records as sessiondb rows. Every row's original is its database row as
 * read (`{ format: "hermes", value }`, integers past 2^53 as strings, blobs as base64):
 * - the `sessions` row → an inactive `system` row (`externalId` `session`) whose text is the
 *   session's system prompt: searchable, given back, not part of the conversation.
 * - a `messages` row → a row of its role (`externalId` `message:<id>`): content, `tool_calls`
 *   (JSON, OpenAI's shape) as toolCalls, `tool_call_id` and `tool_name` of a tool result,
 *   `reasoning` (else `reasoning_content`), `finish_reason`, `token_count`, its timestamp. A
 *   row Hermes marks inactive (`active = 0`: compressed away, rewound) is stored inactive. A
 *   role sessiondb has not is an inactive row, counted as unknown. `tool_calls` that is not
 *   JSON is a problem (table and row id); the row is stored without its calls.
 * - a usage row that moved → an inactive row carrying the usage it added (usage.ts).
 */
import type { Json, MessageInput, Role } from "@sessiondb/core";
import { ROLES } from "@sessiondb/core";
import type { Row } from "@sessiondb/core/driver";
import type { DatabaseRecord, ItemMapper, MappedItem } from "../mapped.js";
import { jsonRow, num, text } from "./columns.js";
import { HERMES_FORMAT } from "./session.js";
import { type Totals, type UsageRow, usageSince } from "./usage.js";

export class HermesRows implements ItemMapper<DatabaseRecord> {
  map(record: DatabaseRecord): MappedItem {
    if (record.table === "messages") return message(record.value as Row);
    if (record.table === "sessions" && record.rowId !== undefined && !isUsage(record.value))
      return {
        messages: [
          {
            role: "system",
            content: text((record.value as Row).system_prompt) ?? null,
            active: false,
            externalId: "session",
            original: original(record.value as Row),
            ...at((record.value as Row).started_at),
          },
        ],
      };
    if (isUsage(record.value)) return usage(record.table, record.value);
    return { messages: [], unknown: record.table };
  }
}

function isUsage(value: unknown): value is { usage: Row; previous: Totals | null } {
  return value !== null && typeof value === "object" && "usage" in value && "previous" in value;
}

function message(row: Row): MappedItem {
  const role = text(row.role) ?? "(none)";
  const known = (ROLES as readonly string[]).includes(role) && role !== "developer";
  const m: MessageInput = {
    role: known ? (role as Role) : "system",
    content: typeof row.content === "string" ? row.content : null,
    externalId: `message:${num(row.id) ?? String(row.id)}`,
    original: original(row),
    ...at(row.timestamp),
  };
  if (!known || num(row.active) === 0) m.active = false;
  const mapped: MappedItem = { messages: [m] };
  if (!known) mapped.unknown = role;
  const calls = text(row.tool_calls);
  if (calls !== undefined) {
    try {
      const value = JSON.parse(calls) as Json;
      if (Array.isArray(value)) {
        if (value.length > 0) m.toolCalls = value;
      } else
        mapped.problem = "tool_calls is JSON but not a list of calls; the message is stored without them";
    } catch (error) {
      mapped.problem = `tool_calls is not JSON (${(error as Error).message}); the message is stored without them`;
    }
  }
  const callId = text(row.tool_call_id);
  if (callId !== undefined) m.toolCallId = callId;
  const toolName = text(row.tool_name);
  if (toolName !== undefined) m.toolName = toolName;
  const reasoning = text(row.reasoning) ?? text(row.reasoning_content);
  if (reasoning !== undefined) m.reasoning = reasoning;
  const finish = text(row.finish_reason);
  if (finish !== undefined) m.finishReason = finish;
  const tokens = num(row.token_count);
  if (tokens !== undefined && Number.isSafeInteger(tokens) && tokens >= 0) m.tokenCount = tokens;
  return mapped;
}

function usage(table: string, value: { usage: Row; previous: Totals | null }): MappedItem {
  const u: UsageRow = { table, row: value.usage };
  const added = usageSince(u, value.previous);
  if (added === undefined) return { messages: [] };
  return {
    messages: [
      {
        role: "system",
        content: null,
        active: false,
        externalId: added.externalId,
        original: original(value.usage),
        usage: added.usage,
        metadata: { hermes: { apiCalls: added.calls } },
        ...at(value.usage.last_seen),
      },
    ],
  };
}

function original(row: Row): { format: string; value: Json } {
  return { format: HERMES_FORMAT, value: jsonRow(row) };
}

/** A timestamp field, when the column holds epoch seconds. */
function at(value: unknown): { timestamp?: number } {
  const n = num(value);
  return n !== undefined && n >= 0 ? { timestamp: n } : {};
}
