/**
 * Messages (spec §8): validated appends in one transaction (the session's counters move with
 * them), reads in id order, counts.
 */

import { all, get, now, type Op, read, readsTextWhole, run, write } from "../engine/effects.js";
import { InvalidInputError, SessionNotFoundError } from "../errors.js";
import { messageColumns, toMessage } from "./rows.js";
import { requireSession } from "./sessions.js";
import type { GetMessagesOptions, Message, MessageInput } from "./types.js";
import * as valid from "./validate.js";

/** A message after validation: the column values to insert. */
interface ValidMessage {
  role: string;
  text: string | null;
  parts: string | null;
  toolName: string | null;
  toolCallId: string | null;
  toolCalls: string | null;
  toolCallCount: number;
  timestamp: number;
  tokenCount: number | null;
  finishReason: string | null;
  reasoning: string | null;
  metadata: string | null;
}

const MESSAGE_FIELDS = [
  "role",
  "content",
  "toolName",
  "toolCallId",
  "toolCalls",
  "tokenCount",
  "finishReason",
  "reasoning",
  "timestamp",
  "metadata",
] as const satisfies readonly (keyof MessageInput)[];

function validMessage(given: MessageInput, field: string, nowSeconds: number): ValidMessage {
  const input = valid.record(given, field, MESSAGE_FIELDS, field);
  const body = valid.content(input.content, `${field}.content`);
  const toolCalls = valid.jsonArray(input.toolCalls, `${field}.toolCalls`);
  return {
    role: valid.role(input.role, `${field}.role`),
    text: body.text,
    parts: body.parts,
    toolName: valid.optionalText(input.toolName, `${field}.toolName`, 500),
    toolCallId: valid.optionalText(input.toolCallId, `${field}.toolCallId`, 500),
    toolCalls: toolCalls.text,
    toolCallCount: toolCalls.length,
    timestamp: valid.timestamp(input.timestamp, `${field}.timestamp`, nowSeconds),
    tokenCount: valid.count(input.tokenCount, `${field}.tokenCount`),
    finishReason: valid.optionalText(input.finishReason, `${field}.finishReason`, 200),
    reasoning: valid.optionalText(input.reasoning, `${field}.reasoning`, 16 * 1024 * 1024),
    metadata: valid.jsonObject(input.metadata, `${field}.metadata`),
  };
}

const INSERT_MESSAGE = `INSERT INTO messages (session_id, role, content, content_parts, tool_name, tool_call_id, tool_calls,
  timestamp, token_count, finish_reason, reasoning, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Append messages in one transaction; returns their ids in order. */
export function* appendMessages(
  sessionId: string,
  messages: MessageInput[],
  patienceMs: number,
): Op<number[]> {
  const id = valid.sessionId(sessionId);
  if (!Array.isArray(messages)) throw new InvalidInputError("messages", "expected an array");
  const nowSeconds = (yield* now()) / 1000;
  const rows = messages.map((message, i) => validMessage(message, `messages[${i}]`, nowSeconds));
  if (rows.length === 0) return [];
  const toolCalls = rows.reduce((sum, row) => sum + row.toolCallCount, 0);
  const latest = Math.max(...rows.map((row) => row.timestamp));
  return yield* write(() => insertMessages(id, rows, toolCalls, latest), {
    patienceMs,
    what: `the append of ${rows.length} message${rows.length === 1 ? "" : "s"} to session ${JSON.stringify(id)}`,
  });
}

function* insertMessages(id: string, rows: ValidMessage[], toolCalls: number, latest: number): Op<number[]> {
  // The counter update doubles as the existence check: no row changed, no session.
  const { changes } = yield* run(
    `UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ?,
       last_activity_at = max(coalesce(last_activity_at, ?), ?) WHERE id = ?`,
    rows.length,
    toolCalls,
    latest,
    latest,
    id,
  );
  if (changes === 0) throw new SessionNotFoundError(id);
  const ids: number[] = [];
  for (const row of rows) {
    const inserted = yield* run(
      INSERT_MESSAGE,
      id,
      row.role,
      row.text,
      row.parts,
      row.toolName,
      row.toolCallId,
      row.toolCalls,
      row.timestamp,
      row.tokenCount,
      row.finishReason,
      row.reasoning,
      row.metadata,
    );
    ids.push(inserted.lastInsertRowid);
  }
  return ids;
}

/** Messages of a session in order. */
export function* getMessages(sessionId: string, options?: GetMessagesOptions | null): Op<Message[]> {
  const id = valid.sessionId(sessionId);
  const o = valid.options(options, "getMessages", ["afterId", "limit", "includeInactive"]);
  const afterId = valid.integerOption(o.afterId, "getMessages.afterId", 0, Number.MAX_SAFE_INTEGER) ?? 0;
  // -1: SQLite's "no limit".
  const limit = valid.integerOption(o.limit, "getMessages.limit", 0, Number.MAX_SAFE_INTEGER) ?? -1;
  const includeInactive = valid.flagOption(o.includeInactive, "getMessages.includeInactive") ? 1 : 0;
  return yield* read(() => selectMessages(id, afterId, includeInactive, limit));
}

function* selectMessages(id: string, afterId: number, includeInactive: number, limit: number): Op<Message[]> {
  yield* requireSession(id);
  const rows = yield* all(
    `SELECT ${messageColumns(yield* readsTextWhole())} FROM messages
       WHERE session_id = ? AND id > ? AND (? = 1 OR active = 1) ORDER BY id LIMIT ?`,
    id,
    afterId,
    includeInactive,
    limit,
  );
  return rows.map(toMessage);
}

/** Number of stored messages, in one session or in the whole store. */
export function* messageCount(sessionId?: string): Op<number> {
  if (sessionId === undefined) return yield* read(countAll);
  const id = valid.sessionId(sessionId);
  return yield* read(() => countIn(id));
}

function* countAll(): Op<number> {
  return Number((yield* get("SELECT count(*) AS n FROM messages"))?.n ?? 0);
}

function* countIn(id: string): Op<number> {
  yield* requireSession(id);
  return Number((yield* get("SELECT count(*) AS n FROM messages WHERE session_id = ?", id))?.n ?? 0);
}
