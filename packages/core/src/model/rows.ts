/** Database rows → public objects. JSON columns that fail to parse read back as null rather
 * than breaking a listing (a store may hold rows written by other tools). */
import type { Row } from "../driver.js";
import { MESSAGES, SESSION_MODEL_USAGE, SESSIONS, type TableDef } from "../schema/definition.js";
import type { Json, Message, Original, Role, Session, SessionSummary, UsageRow } from "./types.js";

/*
 * Some bindings (Deno's node:sqlite, @db/sqlite) read TEXT only up to its first NUL, though the
 * whole value is stored (binding-facts.ts asks each driver once). For those, every TEXT column
 * can be selected through a guard that hands a value holding a NUL over as a BLOB, which `text`
 * decodes; text-reads.ts decides when a read needs it. Elsewhere the guard is left out: it scans
 * every value, which doubled the driver's time to read 1 KiB messages on Node.
 */

/** `expr AS alias` for a short TEXT column, guarded on every connection (the scan is cheap),
 * for queries built without one; decode the value with `text`. */
export function nulSafeColumn(expr: string, alias: string): string {
  return guardedText(expr, alias, false);
}

/** `expr AS alias` for a TEXT column, guarded unless the connection reads TEXT whole. */
function guardedText(expr: string, alias: string, whole: boolean): string {
  if (whole) return `${expr} AS ${alias}`;
  // instr over the bytes: a plain byte scan, faster than instr's character walk over TEXT.
  return `CASE WHEN instr(CAST(${expr} AS BLOB), x'00') > 0 THEN CAST(${expr} AS BLOB) ELSE ${expr} END AS ${alias}`;
}

/** A select list of every column of `table` (from the schema definition) qualified by
 * `prefix`: `plain`, the columns as they are, or the TEXT ones through the guard (see
 * text-reads.ts); both variants are built once. */
function selectList(prefix: string, table: TableDef): (plain: boolean) => string {
  const build = (whole: boolean) =>
    table.columns
      .map(({ name, type }) => (type === "TEXT" ? guardedText(prefix + name, name, whole) : prefix + name))
      .join(", ");
  const whole = build(true);
  const guarded = build(false);
  return (plain) => (plain ? whole : guarded);
}

// ignoreBOM: a value that starts with U+FEFF keeps it (the decoder strips it by default).
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/*
 * The readers below run for every column of every row read, and nearly every value is already of
 * the type asked for (SQLite's TEXT a string, INTEGER a number, or NULL). Each answers that case
 * first, in a function small enough for every engine to inline, and leaves the rest to a
 * separate one: with the rare cases in the same function, JavaScriptCore called it instead, and
 * Bun's `getMessages(id, { last: 50 })` spent 12 µs building 50 messages where the inlined form
 * spends 5 (the bare read is ~42 µs); V8 inlines both alike.
 */

/** A text column's value as a string: bytes (a guarded TEXT, or a BLOB another tool wrote) are
 * decoded as UTF-8, invalid sequences becoming U+FFFD. */
export function text(value: unknown): string | null {
  return typeof value === "string" ? value : value === null || value === undefined ? null : decoded(value);
}

function decoded(value: unknown): string {
  return value instanceof Uint8Array ? utf8Text(value) : String(value);
}

/** UTF-8 bytes as a string: invalid sequences become U+FFFD, and a leading U+FEFF is kept (a
 * decoder strips it by default, which would change text that starts with one). */
export function utf8Text(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

function parseJson<T>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  try {
    return JSON.parse(text(value) as string) as T;
  } catch {
    return null;
  }
}

const str = (value: unknown): string => (typeof value === "string" ? value : (text(value) ?? ""));
const num = (value: unknown): number => (typeof value === "number" ? value : Number(value ?? 0));
const optNum = (value: unknown): number | null =>
  typeof value === "number" ? value : value === null || value === undefined ? null : Number(value);

/** The columns read for a session, qualified by `s.` so joins stay unambiguous. */
export const sessionColumns = selectList("s.", SESSIONS);

export function toSession(row: Row): Session {
  return {
    id: str(row.id),
    source: str(row.source),
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

/** Characters of the first user message a session summary shows. */
const PREVIEW_CHARS = 200;
/** A character is at most 4 bytes: the preview lies within this many bytes. */
const PREVIEW_BYTES = PREVIEW_CHARS * 4;

/**
 * The preview of the message text `expr`. SQLite's substr() stops at a NUL in TEXT (on every
 * driver), so a head holding one is read as bytes instead, and `toSessionSummary` cuts it to
 * PREVIEW_CHARS. Only the head is scanned, whatever the message's length.
 */
export function previewOf(expr: string): string {
  const head = `substr(CAST(${expr} AS BLOB), 1, ${PREVIEW_BYTES})`;
  return `CASE WHEN instr(${head}, x'00') > 0 THEN ${head} ELSE substr(${expr}, 1, ${PREVIEW_CHARS}) END`;
}

export function toSessionSummary(row: Row): SessionSummary {
  const session = toSession(row);
  const preview = text(row.preview);
  return {
    ...session,
    lastActiveAt: session.lastActivityAt ?? session.startedAt,
    // Bytes are a head of PREVIEW_BYTES: cut to PREVIEW_CHARS code points, as substr() counts.
    preview:
      row.preview instanceof Uint8Array && preview !== null
        ? Array.from(preview).slice(0, PREVIEW_CHARS).join("")
        : preview,
  };
}

/** The columns read for a message (of `messages`, unqualified). */
export const messageColumns = selectList("m.", MESSAGES);

export function toMessage(row: Row): Message {
  const parts = parseJson<Json>(row.content_parts);
  return {
    id: num(row.id),
    sessionId: str(row.session_id),
    role: str(row.role) as Role,
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
    externalId: text(row.external_id),
    original: toOriginal(row),
  };
}

function toOriginal(row: Row): Original | null {
  const format = text(row.original_format);
  if (format === null || row.original === null || row.original === undefined) return null;
  try {
    return { format, value: JSON.parse(text(row.original) as string) as Json };
  } catch {
    return null;
  }
}

/** The columns read for a usage row (of `session_model_usage`, unqualified). */
export const usageColumns = selectList("", SESSION_MODEL_USAGE);

export function toUsageRow(row: Row): UsageRow {
  return {
    sessionId: str(row.session_id),
    model: str(row.model),
    provider: str(row.provider),
    baseUrl: str(row.base_url),
    billingMode: str(row.billing_mode),
    task: str(row.task),
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
