/**
 * The JSONL interchange format of `export` and `import`: one JSON object per line.
 *
 * - A session record: `{"type":"session","id":…,"source":…,"started_at":…, …}`.
 * - A message: an OpenAI chat message — `role`, `content` (string, null, or content parts),
 *   `name`, `tool_calls`, `tool_call_id` — plus `session_id`, `timestamp` and sessiondb's extras
 *   (`token_count`, `finish_reason`, `reasoning`, `metadata`). `name` carries sessiondb's
 *   `toolName`. A message without `session_id` belongs to the nearest session record above it.
 *
 * Keys come in a fixed order and absent values are left out, so exporting the same data always
 * gives the same bytes (the round-trip test compares them).
 */
import {
  type CreateSessionInput,
  type Json,
  type Message,
  type MessageInput,
  ROLES,
  type Role,
  type Session,
} from "@sessiondb/core";

/** A session record as written to / read from a line. */
export interface SessionRecord {
  type: "session";
  id: string;
  source: string;
  model?: string;
  model_config?: Json;
  title?: string;
  parent_session_id?: string;
  cwd?: string;
  started_at: number;
  ended_at?: number;
  end_reason?: string;
  archived?: boolean;
  pinned?: boolean;
  metadata?: { [key: string]: Json };
}

/** A message line. */
export interface MessageRecord {
  role: Role;
  content: string | Json[] | { [key: string]: Json } | null;
  name?: string;
  tool_calls?: Json[];
  tool_call_id?: string;
  session_id?: string;
  timestamp?: number;
  token_count?: number;
  finish_reason?: string;
  reasoning?: string;
  metadata?: { [key: string]: Json };
}

/** Assign only present values, in call order (key order is the byte order of the line). */
function put<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K] | null | undefined | false,
): void {
  if (value !== null && value !== undefined && value !== false) target[key] = value as T[K];
}

export function sessionToRecord(session: Session): SessionRecord {
  const out = { type: "session", id: session.id, source: session.source } as SessionRecord;
  put(out, "model", session.model);
  put(out, "model_config", session.modelConfig);
  put(out, "title", session.title);
  put(out, "parent_session_id", session.parentSessionId);
  put(out, "cwd", session.cwd);
  out.started_at = session.startedAt;
  put(out, "ended_at", session.endedAt);
  put(out, "end_reason", session.endReason);
  put(out, "archived", session.archived);
  put(out, "pinned", session.pinned);
  put(out, "metadata", session.metadata);
  return out;
}

export function messageToRecord(message: Message): MessageRecord {
  const out = { role: message.role, content: message.content } as MessageRecord;
  put(out, "name", message.toolName);
  put(out, "tool_calls", message.toolCalls);
  put(out, "tool_call_id", message.toolCallId);
  out.session_id = message.sessionId;
  out.timestamp = message.timestamp;
  put(out, "token_count", message.tokenCount);
  put(out, "finish_reason", message.finishReason);
  put(out, "reasoning", message.reasoning);
  put(out, "metadata", message.metadata);
  return out;
}

// ── reading ────────────────────────────────────────────────────────────────────────────────

export type ParsedLine =
  | { kind: "session"; record: SessionRecord; input: CreateSessionInput; ignored: string[] }
  | { kind: "message"; sessionId: string | undefined; input: MessageInput; ignored: string[] }
  | {
      kind: "error";
      message: string;
      /** The session the line names, when it names one. */
      sessionId?: string;
      /** The line is a (malformed) session record: it opens a new block all the same. */
      startsSession?: boolean;
    };

const SESSION_KEYS = new Set([
  "type",
  "id",
  "source",
  "model",
  "model_config",
  "title",
  "parent_session_id",
  "cwd",
  "started_at",
  "ended_at",
  "end_reason",
  "archived",
  "pinned",
  "metadata",
]);
const MESSAGE_KEYS = new Set([
  "role",
  "content",
  "name",
  "tool_calls",
  "tool_call_id",
  "session_id",
  "timestamp",
  "token_count",
  "finish_reason",
  "reasoning",
  "metadata",
]);

class LineError extends Error {}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function optString(obj: Obj, key: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new LineError(`"${key}" must be a string`);
  return v;
}

function reqString(obj: Obj, key: string): string {
  const v = optString(obj, key);
  if (v === undefined || v === "") throw new LineError(`"${key}" is required and must be a non-empty string`);
  return v;
}

function optNumber(obj: Obj, key: string): number | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v))
    throw new LineError(`"${key}" must be a finite number (epoch seconds)`);
  return v;
}

function optBoolean(obj: Obj, key: string): boolean | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw new LineError(`"${key}" must be true or false`);
  return v;
}

function optObject(obj: Obj, key: string): { [key: string]: Json } | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new LineError(`"${key}" must be an object`);
  return v as { [key: string]: Json };
}

function ignoredKeys(obj: Obj, known: Set<string>): string[] {
  return Object.keys(obj).filter((key) => !known.has(key));
}

function parseSession(obj: Obj): ParsedLine {
  const id = reqString(obj, "id");
  const source = reqString(obj, "source");
  const startedAt = optNumber(obj, "started_at");
  const record: SessionRecord = { type: "session", id, source, started_at: startedAt ?? Number.NaN };
  const input: CreateSessionInput = { id, source };
  const model = optString(obj, "model");
  const title = optString(obj, "title");
  const parent = optString(obj, "parent_session_id");
  const cwd = optString(obj, "cwd");
  const metadata = optObject(obj, "metadata");
  if (model !== undefined) input.model = model;
  if (obj.model_config !== undefined && obj.model_config !== null)
    input.modelConfig = obj.model_config as Json;
  if (title !== undefined) input.title = title;
  if (parent !== undefined) input.parentSessionId = parent;
  if (cwd !== undefined) input.cwd = cwd;
  if (metadata !== undefined) input.metadata = metadata;
  if (startedAt !== undefined) input.startedAt = startedAt;
  const endedAt = optNumber(obj, "ended_at");
  const endReason = optString(obj, "end_reason");
  if (endedAt !== undefined) record.ended_at = endedAt;
  if (endReason !== undefined) record.end_reason = endReason;
  if (endedAt !== undefined && endReason === undefined)
    throw new LineError(`"ended_at" needs an "end_reason"`);
  if (optBoolean(obj, "archived")) record.archived = true;
  if (optBoolean(obj, "pinned")) record.pinned = true;
  if (parent !== undefined) record.parent_session_id = parent;
  return { kind: "session", record, input, ignored: ignoredKeys(obj, SESSION_KEYS) };
}

function parseMessage(obj: Obj): ParsedLine {
  const role = obj.role;
  if (typeof role !== "string" || !ROLES.includes(role as Role)) {
    throw new LineError(`"role" must be one of ${ROLES.join(", ")}`);
  }
  const content = obj.content;
  if (
    !(content === undefined || content === null || typeof content === "string" || typeof content === "object")
  ) {
    throw new LineError(`"content" must be a string, null, or content parts`);
  }
  const toolCalls = obj.tool_calls;
  if (toolCalls !== undefined && toolCalls !== null && !Array.isArray(toolCalls))
    throw new LineError(`"tool_calls" must be an array`);
  const tokenCount = obj.token_count;
  if (
    tokenCount !== undefined &&
    tokenCount !== null &&
    !(Number.isSafeInteger(tokenCount) && (tokenCount as number) >= 0)
  ) {
    throw new LineError(`"token_count" must be a non-negative integer`);
  }
  const input: MessageInput = { role: role as Role, content: (content ?? null) as MessageInput["content"] };
  const name = optString(obj, "name");
  const toolCallId = optString(obj, "tool_call_id");
  const timestamp = optNumber(obj, "timestamp");
  const finishReason = optString(obj, "finish_reason");
  const reasoning = optString(obj, "reasoning");
  const metadata = optObject(obj, "metadata");
  if (name !== undefined) input.toolName = name;
  if (Array.isArray(toolCalls)) input.toolCalls = toolCalls as Json[];
  if (toolCallId !== undefined) input.toolCallId = toolCallId;
  if (timestamp !== undefined) input.timestamp = timestamp;
  if (typeof tokenCount === "number") input.tokenCount = tokenCount;
  if (finishReason !== undefined) input.finishReason = finishReason;
  if (reasoning !== undefined) input.reasoning = reasoning;
  if (metadata !== undefined) input.metadata = metadata;
  return {
    kind: "message",
    sessionId: optString(obj, "session_id"),
    input,
    ignored: ignoredKeys(obj, MESSAGE_KEYS),
  };
}

/** Parse and check one line (blank lines are the caller's to skip). */
export function parseLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      kind: "error",
      message: `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  if (!isObject(value)) return { kind: "error", message: "expected a JSON object" };
  try {
    if (value.type === "session") return parseSession(value);
    if (value.type !== undefined)
      return {
        kind: "error",
        message: `unknown record type ${JSON.stringify(value.type)} (expected "session" or a message)`,
      };
    return parseMessage(value);
  } catch (error) {
    if (!(error instanceof LineError)) throw error;
    const startsSession = value.type === "session";
    const named = startsSession ? value.id : value.session_id;
    const sessionId = typeof named === "string" && named !== "" ? named : undefined;
    return {
      kind: "error",
      message: error.message,
      ...(sessionId ? { sessionId } : {}),
      ...(startsSession ? { startsSession } : {}),
    };
  }
}
