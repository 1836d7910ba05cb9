/**
 * Messages (spec §8): validated appends in one transaction (the session's counters move with
 * them), reads in id order, counts.
 */

import type { Row, RunResult, SqlValue } from "../driver.js";
import { type Effect, get, NOW, type Op, run } from "../engine/effects.js";
import { InvalidInputError, SessionNotFoundError } from "../errors.js";
import { messageColumns, toMessage } from "../model/rows.js";
import type {
  GetMessagesOptions,
  Message,
  MessageInput,
  MessagePatch,
  Original,
  UsageInput,
} from "../model/types.js";
import * as valid from "../model/validate.js";
import { guard, read, write } from "../policy/calls.js";
import { requireSession } from "./sessions.js";
import { selectText } from "./text-reads.js";
import { addUsage, type ValidUsage, validUsage } from "./usage.js";

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
  externalId: string | null;
  originalFormat: string | null;
  original: string | null;
  usage: ValidUsage | null;
  active: 0 | 1;
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
  "externalId",
  "original",
  "usage",
  "active",
] as const satisfies readonly (keyof MessageInput)[];

/** Longest external id and shape name accepted. */
const MAX_EXTERNAL_ID_CHARS = 500;
const MAX_FORMAT_CHARS = 100;

function validMessage(given: MessageInput, field: string, nowSeconds: number): ValidMessage {
  const input = valid.record(given, field, MESSAGE_FIELDS, field);
  const body = valid.content(input.content, `${field}.content`);
  const toolCalls = valid.jsonArray(input.toolCalls, `${field}.toolCalls`);
  const original = validOriginal(input.original, `${field}.original`);
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
    externalId: valid.optionalText(input.externalId, `${field}.externalId`, MAX_EXTERNAL_ID_CHARS),
    originalFormat: original.format,
    original: original.value,
    usage:
      input.usage === undefined || input.usage === null
        ? null
        : validUsage(input.usage as UsageInput, `${field}.usage`),
    active: input.active === undefined || valid.flag(input.active, `${field}.active`) ? 1 : 0,
  };
}

/** An `original`: null, or `{ format, value }` with any JSON value. */
function validOriginal(given: unknown, field: string): { format: string | null; value: string | null } {
  if (given === undefined || given === null) return { format: null, value: null };
  const original = valid.record(given as Original, field, ["format", "value"] as const, field);
  const format = valid.requiredText(original.format, `${field}.format`, MAX_FORMAT_CHARS);
  if (original.value === undefined) throw new InvalidInputError(`${field}.value`, "is required");
  return { format, value: valid.jsonValue(original.value, `${field}.value`) ?? "null" };
}

// ON CONFLICT DO NOTHING: the only uniqueness a new row can meet is idx_messages_external (the
// id is the rowid's next value), so a message whose external id the session has is skipped.
const INSERT_MESSAGE = `INSERT INTO messages (session_id, role, content, content_parts, tool_name, tool_call_id, tool_calls,
  timestamp, token_count, finish_reason, reasoning, metadata, external_id, original_format, original, active)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;

const STORED_EXTERNAL = "SELECT id FROM messages WHERE session_id = ? AND external_id = ?";

/** Binds: messages, tool calls, then the latest timestamp three times (null: leave the last
 * activity as it is), then the session id. */
const UPDATE_SESSION_COUNTERS = `UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ?,
       last_activity_at = CASE WHEN ? IS NULL THEN last_activity_at ELSE max(coalesce(last_activity_at, ?), ?) END
       WHERE id = ?`;

/** The last activity of rows with an external id, once they are known to be stored. */
const TOUCH_SESSION =
  "UPDATE sessions SET last_activity_at = max(coalesce(last_activity_at, ?), ?) WHERE id = ?";

/** Take back from the session's counters what skipped messages had added. */
const UNCOUNT_SKIPPED = `UPDATE sessions SET message_count = message_count - ?, tool_call_count = tool_call_count - ?
       WHERE id = ?`;

/** What an append adds to the session's counters. */
interface Counts {
  messages: number;
  toolCalls: number;
  /** The latest timestamp of the rows without an external id (stored for sure), or null; a row
   * with one may be skipped, and then must not move the session's last activity either. */
  latest: number | null;
  /** When usage carried by the messages is recorded (epoch seconds). */
  at: number;
}

/**
 * Append messages in one transaction; returns their ids in order. Every message takes this
 * path, and beyond the raw SQL an append costs only the JavaScript around its statements (the
 * same statements through the store's connection cost what the raw binding's do), so the effects
 * are yielded as objects rather than through their helper generators and the rows are checked
 * in one loop: fewer generators and closures per append.
 */
export function* appendMessages(
  sessionId: string,
  messages: MessageInput[],
  patienceMs: number,
): Op<number[]> {
  const id = valid.sessionId(sessionId);
  if (!Array.isArray(messages)) throw new InvalidInputError("messages", "expected an array");
  const nowSeconds = ((yield NOW) as number) / 1000;
  const rows: ValidMessage[] = [];
  const counts: Counts = { messages: 0, toolCalls: 0, latest: null, at: nowSeconds };
  let bytes = 0;
  for (let i = 0; i < messages.length; i++) {
    const row = validMessage(messages[i] as MessageInput, `messages[${i}]`, nowSeconds);
    rows.push(row);
    bytes += valueChars(row);
    counts.messages += row.active;
    counts.toolCalls += row.active * row.toolCallCount;
    if (row.externalId === null && (counts.latest === null || row.timestamp > counts.latest))
      counts.latest = row.timestamp;
  }
  if (rows.length === 0) {
    // Nothing to store, but the call is still checked as an append: a closed or read-only store,
    // or a mistyped session id, is reported rather than answered with an empty list.
    yield* guard("writable");
    yield* read(() => requireSession(id));
    return [];
  }
  return yield* write(() => insertMessages(id, rows, counts), {
    patienceMs,
    what: `the append of ${rows.length} message${rows.length === 1 ? "" : "s"} to session ${JSON.stringify(id)}`,
    groupable: { rows: rows.length, bytes },
  });
}

/** The characters of a row's large values: a group commit's bound (group-commit.ts). */
function valueChars(row: ValidMessage): number {
  return (
    (row.text?.length ?? 0) +
    (row.parts?.length ?? 0) +
    (row.toolCalls?.length ?? 0) +
    (row.reasoning?.length ?? 0) +
    (row.metadata?.length ?? 0) +
    (row.original?.length ?? 0)
  );
}

function* insertMessages(id: string, rows: ValidMessage[], counts: Counts): Op<number[]> {
  // The counter update doubles as the existence check: no row changed, no session.
  const counted = (yield {
    kind: "run",
    sql: UPDATE_SESSION_COUNTERS,
    params: [counts.messages, counts.toolCalls, counts.latest, counts.latest, counts.latest, id],
  }) as RunResult;
  if (counted.changes === 0) throw new SessionNotFoundError(id);
  const ids: number[] = [];
  let skipped = 0;
  let skippedToolCalls = 0;
  let latestExternal: number | null = null;
  for (const row of rows) {
    const inserted = (yield {
      kind: "run",
      sql: INSERT_MESSAGE,
      params: [
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
        row.externalId,
        row.originalFormat,
        row.original,
        row.active,
      ],
    }) as RunResult;
    if (inserted.changes === 0) {
      // Stored already under this external id: the stored message's id, and nothing counted.
      ids.push(Number((yield* get(STORED_EXTERNAL, id, row.externalId))?.id));
      skipped += row.active;
      skippedToolCalls += row.active * row.toolCallCount;
      continue;
    }
    ids.push(inserted.lastInsertRowid);
    if (row.usage !== null) yield* addUsage(id, row.usage, counts.at);
    if (row.externalId !== null && (latestExternal === null || row.timestamp > latestExternal))
      latestExternal = row.timestamp;
  }
  if (skipped > 0 || skippedToolCalls > 0) yield* run(UNCOUNT_SKIPPED, skipped, skippedToolCalls, id);
  if (latestExternal !== null && (counts.latest === null || latestExternal > counts.latest))
    yield* run(TOUCH_SESSION, latestExternal, latestExternal, id);
  return ids;
}

const PATCH_FIELDS = [
  "content",
  "toolName",
  "toolCallId",
  "toolCalls",
  "tokenCount",
  "finishReason",
  "reasoning",
  "metadata",
  "original",
  "active",
] as const satisfies readonly (keyof MessagePatch)[];

/** What a message keeps from its append: a patch naming one is refused rather than ignored. */
const FIXED_FIELDS = ["role", "timestamp", "externalId", "usage"] as const;

/** The message's state the counters depend on; no row when it is not in that session. */
const STORED_MESSAGE = `SELECT active, coalesce(json_array_length(tool_calls), 0) AS calls
  FROM messages WHERE id = ? AND session_id = ?`;

/**
 * Change a stored message in place (the search index follows through its triggers); the
 * session's message and tool-call counters move with its active flag and tool calls. Fields
 * the patch leaves out stay as they are.
 */
export function* updateMessage(sessionId: string, messageId: number, patch: MessagePatch): Op<void> {
  const id = valid.sessionId(sessionId);
  const message = valid.integerOption(messageId, "messageId", 1, Number.MAX_SAFE_INTEGER);
  if (message === undefined) throw new InvalidInputError("messageId", "is required");
  const given = valid.record(patch, "patch", PATCH_FIELDS, "patch");
  for (const fixed of FIXED_FIELDS) {
    if (Object.hasOwn(patch, fixed))
      throw new InvalidInputError(`patch.${fixed}`, "cannot be changed: append a new message instead");
  }
  const columns: string[] = [];
  const values: SqlValue[] = [];
  const set = (column: string, value: SqlValue) => {
    columns.push(`${column} = ?`);
    values.push(value);
  };
  if (given.content !== undefined) {
    const body = valid.content(given.content, "patch.content");
    set("content", body.text);
    set("content_parts", body.parts);
  }
  if (given.toolName !== undefined)
    set("tool_name", valid.optionalText(given.toolName, "patch.toolName", 500));
  if (given.toolCallId !== undefined)
    set("tool_call_id", valid.optionalText(given.toolCallId, "patch.toolCallId", 500));
  let toolCalls: number | undefined;
  if (given.toolCalls !== undefined) {
    const calls = valid.jsonArray(given.toolCalls, "patch.toolCalls");
    set("tool_calls", calls.text);
    toolCalls = calls.length;
  }
  if (given.tokenCount !== undefined) set("token_count", valid.count(given.tokenCount, "patch.tokenCount"));
  if (given.finishReason !== undefined)
    set("finish_reason", valid.optionalText(given.finishReason, "patch.finishReason", 200));
  if (given.reasoning !== undefined)
    set("reasoning", valid.optionalText(given.reasoning, "patch.reasoning", 16 * 1024 * 1024));
  if (given.metadata !== undefined) set("metadata", valid.jsonObject(given.metadata, "patch.metadata"));
  if (given.original !== undefined) {
    const original = validOriginal(given.original, "patch.original");
    set("original_format", original.format);
    set("original", original.value);
  }
  let active: 0 | 1 | undefined;
  if (given.active !== undefined) {
    active = valid.flag(given.active, "patch.active") ? 1 : 0;
    set("active", active);
  }
  yield* write(() => patchMessage(id, message, columns, values, { active, toolCalls }));
}

function* patchMessage(
  id: string,
  message: number,
  columns: string[],
  values: SqlValue[],
  next: { active: 0 | 1 | undefined; toolCalls: number | undefined },
): Op<void> {
  const stored = yield* get(STORED_MESSAGE, message, id);
  if (!stored) {
    yield* requireSession(id);
    throw new InvalidInputError("messageId", `session ${JSON.stringify(id)} has no message ${message}`);
  }
  if (columns.length === 0) return;
  yield* run(`UPDATE messages SET ${columns.join(", ")} WHERE id = ?`, ...values, message);
  const wasActive = Number(stored.active) !== 0 ? 1 : 0;
  const isActive = next.active ?? wasActive;
  const calls = Number(stored.calls);
  const messagesDelta = isActive - wasActive;
  const callsDelta = isActive * (next.toolCalls ?? calls) - wasActive * calls;
  if (messagesDelta !== 0 || callsDelta !== 0) {
    yield* run(
      "UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ? WHERE id = ?",
      messagesDelta,
      callsDelta,
      id,
    );
  }
}

/** Messages of a session in order: the first `limit`, or the last `last`, between the ids given. */
export function* getMessages(sessionId: string, options?: GetMessagesOptions | null): Op<Message[]> {
  const id = valid.sessionId(sessionId);
  const o = valid.options(options, "getMessages", [
    "afterId",
    "beforeId",
    "limit",
    "last",
    "includeInactive",
  ]);
  const afterId = valid.integerOption(o.afterId, "getMessages.afterId", 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const beforeId =
    valid.integerOption(o.beforeId, "getMessages.beforeId", 1, Number.MAX_SAFE_INTEGER) ??
    Number.MAX_SAFE_INTEGER;
  const limit = valid.integerOption(o.limit, "getMessages.limit", 0, Number.MAX_SAFE_INTEGER);
  const last = valid.integerOption(o.last, "getMessages.last", 0, Number.MAX_SAFE_INTEGER);
  if (limit !== undefined && last !== undefined)
    throw new InvalidInputError("getMessages.last", "cannot be combined with limit: pass one of them");
  const includeInactive = valid.flagOption(o.includeInactive, "getMessages.includeInactive") ? 1 : 0;
  const range: MessageRange = { afterId, beforeId, includeInactive };
  if (last !== undefined) return yield* read(() => selectLastMessages(id, range, last));
  // -1: SQLite's "no limit".
  return yield* read(() => selectMessages(id, range, limit ?? -1));
}

interface MessageRange {
  afterId: number;
  beforeId: number;
  includeInactive: number;
}

/**
 * The reads of a session's messages in a range, in id order (`DESC`: from the newest). Both walk
 * idx_messages_session (session_id, id) from one end: O(rows returned), no sort. `rows` reads the
 * messages alone — what a resume asks for, as cheap as the bare read. When it finds none, `exact`
 * answers whether the session exists in the same statement: the session's row is the outer side
 * of a LEFT JOIN, so an unknown session gives no row at all and a session without matching
 * messages one row of NULLs. A read of the whole session's active messages (a resume: no ids
 * given) names no bounds at all: three fewer parameters to bind and test on every row it walks
 * made that read ~4 % faster on Bun. Built once per select list, order and shape.
 */
function rangeSql(plain: boolean, order: "" | "DESC", bounded: boolean): { rows: string; exact: string } {
  const columns = messageColumns(plain);
  const match = bounded ? "m.id > ? AND m.id < ? AND (? = 1 OR m.active = 1)" : "m.active = 1";
  return {
    rows: `SELECT ${columns} FROM messages m
      WHERE m.session_id = ? AND ${match} ORDER BY m.id ${order} LIMIT ?`,
    exact: `SELECT ${columns}
       FROM sessions s LEFT JOIN messages m ON m.session_id = s.id AND ${match}
      WHERE s.id = ? ORDER BY m.id ${order} LIMIT ?`,
  };
}
const rangeSqlSet = (plain: boolean) => ({
  oldest: { bounded: rangeSql(plain, "", true), whole: rangeSql(plain, "", false) },
  newest: { bounded: rangeSql(plain, "DESC", true), whole: rangeSql(plain, "DESC", false) },
});
const RANGE_SQL = { plain: rangeSqlSet(true), guarded: rangeSqlSet(false) };

/** The session's messages in `range` (`newestFirst`: from the newest), at most `limit` (-1:
 * SQLite's "no limit"); SessionNotFoundError for an unknown session. */
function* selectRange(id: string, range: MessageRange, limit: number, newestFirst: boolean): Op<Row[]> {
  // A LIMIT of 0 returns no row whether or not the session exists: ask for it alone.
  if (limit === 0) {
    yield* requireSession(id);
    return [];
  }
  const order = newestFirst ? "newest" : "oldest";
  const { afterId, beforeId, includeInactive } = range;
  const bounded = afterId > 0 || beforeId < Number.MAX_SAFE_INTEGER || includeInactive === 1;
  const sql = (plain: boolean) => {
    const lists = RANGE_SQL[plain ? "plain" : "guarded"][order];
    return bounded ? lists.bounded : lists.whole;
  };
  const bounds = bounded ? [afterId, beforeId, includeInactive] : [];
  const rows = yield* selectText((plain) => sql(plain).rows, id, ...bounds, limit);
  if (rows.length > 0) return rows;
  // Nothing in range: an unknown session, or none of its messages matched. One statement decides
  // (and returns a message added meanwhile), so the answer is one state of the store.
  const exact = yield* selectText((plain) => sql(plain).exact, ...bounds, id, limit);
  if (exact.length === 0) throw new SessionNotFoundError(id);
  return exact.length === 1 && exact[0]?.id === null ? [] : exact;
}

function* selectMessages(id: string, range: MessageRange, limit: number): Op<Message[]> {
  return (yield* selectRange(id, range, limit, false)).map(toMessage);
}

function* selectLastMessages(id: string, range: MessageRange, last: number): Op<Message[]> {
  // Newest first through the index, then reversed here: an ORDER BY around a subquery would
  // sort in a temporary B-tree for nothing.
  return (yield* selectRange(id, range, last, true)).reverse().map(toMessage);
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

/** One statement: no row when the session does not exist. */
function* countIn(id: string): Op<number> {
  const row = yield* get(
    "SELECT (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS n FROM sessions s WHERE s.id = ?",
    id,
  );
  if (!row) throw new SessionNotFoundError(id);
  return Number(row.n ?? 0);
}
