/**
 * One opencode session's messages, each with its parts (an `OpencodeRecord`), as sessiondb rows;
 * and the session's own facts. The same mapper serves the database and the JSON storage.
 *
 * A message is an inactive row of its own (`externalId` the message's id, the message's JSON as
 * its original: role, agent, model, tokens, cost, error, …) followed by its parts' rows
 * (parts.ts). An assistant message's usage is its steps' (`step-finish` parts); only a message
 * without any step (opencode before steps were written) carries its own `tokens` and `cost`.
 * A message opencode is still writing (an assistant message without `time.completed` nor an
 * error) stores its finished parts and leaves the rest, and its own row, to a later run.
 */
import type { Json, MessageInput } from "@sessiondb/core";
import type { ItemMapper, MappedItem, SessionFacts } from "../mapped.js";
import { type PartPlace, partRows, usageOf } from "./parts.js";
import {
  OPENCODE_FORMAT,
  type OpencodeRecord,
  type OpencodeSessionInfo,
  obj,
  seconds,
  text,
} from "./records.js";

/** A mapper for one session's records, in order. */
export class OpencodeMessages implements ItemMapper<{ value: unknown }> {
  /** Maps one record (an `OpencodeRow`: `{ table, rowId, value: OpencodeRecord }`). */
  map(row: { value: unknown }, _position: number): MappedItem {
    const record = row.value as OpencodeRecord;
    if (record.problems !== undefined && Object.keys(record.message.data).length === 0)
      return { messages: [], problem: record.problems.join("; ") };
    const { id, sessionId, data } = record.message;
    const role = data.role === "user" || data.role === "assistant" ? data.role : undefined;
    const time = obj(data.time);
    const place: PartPlace = {
      messageId: id,
      sessionId,
      role: role ?? "assistant",
      open: role === "assistant" && time.completed === undefined && data.error === undefined,
    };
    const at = seconds(time.created);
    if (at !== undefined) place.timestamp = at;
    const model = text(data.modelID) ?? text(obj(data.model).modelID);
    const provider = text(data.providerID) ?? text(obj(data.model).providerID);
    if (model !== undefined) place.model = model;
    if (provider !== undefined) place.provider = provider;

    const mapped: MappedItem = { messages: [] };
    const unknown: string[] = [];
    if (role === undefined) unknown.push(`message:${typeof data.role === "string" ? data.role : "(none)"}`);
    const rows: MessageInput[] = [];
    let steps = 0;
    for (const part of record.parts) {
      const out = partRows(part.id, part.data, place);
      if (out.unknown !== undefined) unknown.push(out.unknown);
      if (part.data.type === "step-finish") steps++;
      rows.push(...out.rows);
    }
    if (!place.open) {
      const head: MessageInput = {
        role: place.role,
        content: errorText(data.error),
        active: false,
        externalId: id,
        original: { format: OPENCODE_FORMAT, value: { ...data, id, sessionID: sessionId } as Json },
      };
      if (at !== undefined) head.timestamp = at;
      if (typeof data.finish === "string") head.finishReason = data.finish;
      if (role === "assistant" && steps === 0) {
        const usage = usageOf(data.tokens, data.cost, place);
        if (usage !== undefined) head.usage = usage;
      }
      mapped.messages.push(head);
    }
    mapped.messages.push(...rows);
    // More than one unknown type in a message: each is counted by the caller only once per
    // record, so the first one stands for the record (the rest are kept all the same).
    if (unknown.length > 0) mapped.unknown = unknown[0] as string;
    if (record.problems !== undefined) mapped.problem = record.problems.join("; ");
    return mapped;
  }
}

/** The error an assistant message ended with, as searchable text. */
function errorText(error: unknown): string | null {
  const e = obj(error);
  const message = text(obj(e.data).message) ?? text(e.message);
  const name = text(e.name);
  if (message === undefined && name === undefined) return null;
  return [name, message].filter((s) => s !== undefined).join(": ");
}

/** What opencode's session record says: id, title, directory (the cwd), parent (a subagent's
 * session is a child: `parent_id` / `parentID`), start, the model (the session's, else its first
 * answer's), and `metadata.opencode` (project, slug, version, share URL). Reads a `session` row and a storage session file alike. */
export function opencodeSessionFacts(
  id: string,
  info: OpencodeSessionInfo,
  firstModel?: string,
): SessionFacts {
  const facts: SessionFacts = { id, source: OPENCODE_FORMAT };
  const title = text(info.title);
  if (title !== undefined) facts.title = title;
  const cwd = text(info.directory);
  if (cwd !== undefined) facts.cwd = cwd;
  const parent = text(info.parent_id) ?? text(info.parentID);
  if (parent !== undefined) facts.parentSessionId = parent;
  const started = seconds(info.time_created) ?? seconds(obj(info.time).created);
  if (started !== undefined) facts.startedAt = started;
  const model = text(obj(parseJson(info.model)).id) ?? firstModel;
  if (model !== undefined) facts.model = model;
  const metadata: { [key: string]: Json } = {};
  const fields: [string, unknown][] = [
    ["projectID", info.project_id ?? info.projectID],
    ["slug", info.slug],
    ["version", info.version],
    ["shareUrl", info.share_url ?? obj(info.share).url],
  ];
  for (const [key, value] of fields) if (text(value) !== undefined) metadata[key] = value as string;
  if (Object.keys(metadata).length > 0) facts.metadata = { opencode: metadata };
  return facts;
}

/** A JSON column read as text (the database), or the value itself (a storage file). */
function parseJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}
