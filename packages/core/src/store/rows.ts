/** Database rows → public objects. JSON columns that fail to parse read back as null rather
 * than breaking a listing (a store may hold rows written by other tools). */
import type { Row } from "../driver.js";
import type { Json, Message, Role, Session, SessionSummary, UsageRow } from "./types.js";

function parseJson<T>(value: unknown): T | null {
  if (typeof value !== "string") return null;
  try {
    return JSON.parse(value) as T;
  } catch {
    return null;
  }
}

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);
const num = (value: unknown): number => Number(value ?? 0);
const optNum = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);

/** The columns read for a session, qualified so joins stay unambiguous. */
export const SESSION_COLUMNS = `s.id, s.source, s.model, s.model_config, s.title, s.parent_session_id, s.started_at,
  s.ended_at, s.end_reason, s.last_activity_at, s.message_count, s.tool_call_count, s.input_tokens, s.output_tokens,
  s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens, s.estimated_cost_usd, s.cwd, s.archived, s.pinned,
  s.metadata`;

export function toSession(row: Row): Session {
  return {
    id: String(row.id),
    source: String(row.source),
    model: text(row.model),
    modelConfig: parseJson<Json>(row.model_config),
    title: text(row.title),
    parentSessionId: text(row.parent_session_id),
    startedAt: num(row.started_at),
    endedAt: optNum(row.ended_at),
    endReason: text(row.end_reason),
    lastActivityAt: optNum(row.last_activity_at),
    messageCount: num(row.message_count),
    toolCallCount: num(row.tool_call_count),
    inputTokens: num(row.input_tokens),
    outputTokens: num(row.output_tokens),
    cacheReadTokens: num(row.cache_read_tokens),
    cacheWriteTokens: num(row.cache_write_tokens),
    reasoningTokens: num(row.reasoning_tokens),
    estimatedCostUsd: num(row.estimated_cost_usd),
    cwd: text(row.cwd),
    archived: num(row.archived) !== 0,
    pinned: num(row.pinned) !== 0,
    metadata: parseJson(row.metadata),
  };
}

export function toSessionSummary(row: Row): SessionSummary {
  const session = toSession(row);
  return {
    ...session,
    lastActiveAt: session.lastActivityAt ?? session.startedAt,
    preview: text(row.preview),
  };
}

export const MESSAGE_COLUMNS = `id, session_id, role, content, content_parts, tool_name, tool_call_id, tool_calls,
  timestamp, token_count, finish_reason, reasoning, active, metadata`;

export function toMessage(row: Row): Message {
  const parts =
    row.content_parts === null || row.content_parts === undefined ? null : parseJson<Json>(row.content_parts);
  return {
    id: num(row.id),
    sessionId: String(row.session_id),
    role: String(row.role) as Role,
    content: parts !== null && typeof parts === "object" ? parts : text(row.content),
    toolName: text(row.tool_name),
    toolCallId: text(row.tool_call_id),
    toolCalls: parseJson<Json[]>(row.tool_calls),
    timestamp: num(row.timestamp),
    tokenCount: optNum(row.token_count),
    finishReason: text(row.finish_reason),
    reasoning: text(row.reasoning),
    active: num(row.active) !== 0,
    metadata: parseJson(row.metadata),
  };
}

export function toUsageRow(row: Row): UsageRow {
  return {
    sessionId: String(row.session_id),
    model: String(row.model),
    provider: String(row.provider),
    baseUrl: String(row.base_url),
    billingMode: String(row.billing_mode),
    task: String(row.task),
    callCount: num(row.call_count),
    inputTokens: num(row.input_tokens),
    outputTokens: num(row.output_tokens),
    cacheReadTokens: num(row.cache_read_tokens),
    cacheWriteTokens: num(row.cache_write_tokens),
    reasoningTokens: num(row.reasoning_tokens),
    costUsd: num(row.cost_usd),
    updatedAt: optNum(row.updated_at),
  };
}
