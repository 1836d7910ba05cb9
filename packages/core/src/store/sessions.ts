/**
 * Sessions (spec §8): create (an upsert that never overwrites stored non-null values), read,
 * list with previews, update, end, delete. Each is an operation (engine/effects.ts): it validates
 * its input before its first effect, so a refused call touches nothing, and runs on any runner.
 */
import { MAX_SOURCE_CHARS } from "../constants.js";
import type { SqlValue } from "../driver.js";
import { get, now, type Op, run } from "../engine/effects.js";
import { InvalidInputError, SessionNotFoundError } from "../errors.js";
import { previewOf, sessionColumns, toSession, toSessionSummary } from "../model/rows.js";
import type {
  CreateSessionInput,
  ListSessionsOptions,
  Session,
  SessionSummary,
  UpdateSessionInput,
} from "../model/types.js";
import * as valid from "../model/validate.js";
import { read, write } from "../policy/calls.js";
import { selectText } from "./text-reads.js";

/** Throw SessionNotFoundError unless the session exists. */
export function* requireSession(id: string): Op<void> {
  if (!(yield* get("SELECT 1 FROM sessions WHERE id = ?", id))) throw new SessionNotFoundError(id);
}

/** The fields `createSession` reads (importSessions reads an item's session by the same list). */
export const CREATE_FIELDS = [
  "id",
  "source",
  "model",
  "modelConfig",
  "title",
  "parentSessionId",
  "startedAt",
  "cwd",
  "metadata",
] as const satisfies readonly (keyof CreateSessionInput)[];

const UPDATE_FIELDS = [
  "title",
  "archived",
  "pinned",
  "metadata",
] as const satisfies readonly (keyof UpdateSessionInput)[];

export function* createSession(given: CreateSessionInput): Op<Session> {
  const input = valid.record(given, "input", CREATE_FIELDS);
  const id = input.id === undefined ? globalThis.crypto.randomUUID() : valid.sessionId(input.id, "id");
  const source = valid.requiredText(input.source, "source", 200);
  // null is "no parent", as a session reads back (createSession(getSession(id)) round-trips).
  const parent =
    input.parentSessionId === undefined || input.parentSessionId === null
      ? null
      : valid.sessionId(input.parentSessionId, "parentSessionId");
  if (parent === id) throw new InvalidInputError("parentSessionId", "a session cannot be its own parent");
  const values: SqlValue[] = [
    id,
    source,
    valid.optionalText(input.model, "model", 500),
    valid.jsonValue(input.modelConfig, "modelConfig"),
    valid.optionalText(input.title, "title", 10_000),
    parent,
    valid.timestamp(input.startedAt, "startedAt", (yield* now()) / 1000),
    valid.optionalText(input.cwd, "cwd", 10_000),
    valid.jsonObject(input.metadata, "metadata"),
  ];
  return yield* write(() => upsertSession(id, parent, values));
}

function* upsertSession(id: string, parent: string | null, values: SqlValue[]): Op<Session> {
  if (parent !== null) {
    yield* requireSession(parent);
    // The upsert fills a stored session's missing parent (a stored one is kept, and a new
    // session has no descendants yet): that link must not close a circle, id an ancestor of its
    // new parent. UNION, not UNION ALL: a circle stored by an older version still ends the walk.
    const circle = yield* get(
      `WITH RECURSIVE up(id) AS (
         SELECT ? UNION SELECT s.parent_session_id FROM sessions s JOIN up ON s.id = up.id
           WHERE s.parent_session_id IS NOT NULL)
       SELECT 1 FROM up WHERE id = ?
         AND EXISTS (SELECT 1 FROM sessions WHERE id = ? AND parent_session_id IS NULL)
       LIMIT 1`,
      parent,
      id,
      id,
    );
    if (circle)
      throw new InvalidInputError(
        "parentSessionId",
        `session ${JSON.stringify(parent)} descends from ${JSON.stringify(id)}: linking them would make a circle of parents`,
      );
  }
  yield* run(
    `INSERT INTO sessions (id, source, model, model_config, title, parent_session_id, started_at, cwd, metadata)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET
         model = coalesce(sessions.model, excluded.model),
         model_config = coalesce(sessions.model_config, excluded.model_config),
         title = coalesce(sessions.title, excluded.title),
         parent_session_id = coalesce(sessions.parent_session_id, excluded.parent_session_id),
         cwd = coalesce(sessions.cwd, excluded.cwd),
         metadata = coalesce(sessions.metadata, excluded.metadata)`,
    ...values,
  );
  return (yield* loadSession(id)) as Session;
}

export function* loadSession(id: string): Op<Session | undefined> {
  const [row] = yield* selectText(
    (plain) => `SELECT ${sessionColumns(plain)} FROM sessions s WHERE s.id = ?`,
    id,
  );
  return row ? toSession(row) : undefined;
}

/** The session, or undefined. */
export function* getSession(id: string): Op<Session | undefined> {
  const sessionId = valid.sessionId(id, "id");
  return yield* read(() => loadSession(sessionId));
}

const LIST_OPTION_KEYS = [
  "source",
  "limit",
  "offset",
  "orderBy",
  "includeArchived",
] as const satisfies readonly (keyof ListSessionsOptions)[];
const ORDERS = ["started", "activity"] as const;

/** Sessions, newest first, with message count, last activity and a preview. */
export function* listSessions(options?: ListSessionsOptions | null): Op<SessionSummary[]> {
  const o = valid.options(options, "listSessions", LIST_OPTION_KEYS);
  const source = valid.optionalText(o.source, "listSessions.source", MAX_SOURCE_CHARS);
  const limit = valid.integerOption(o.limit, "listSessions.limit", 0, Number.MAX_SAFE_INTEGER) ?? 50;
  const offset = valid.integerOption(o.offset, "listSessions.offset", 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const orderBy = valid.choiceOption(o.orderBy, "listSessions.orderBy", ORDERS) ?? "started";
  const includeArchived = valid.flagOption(o.includeArchived, "listSessions.includeArchived") ? 1 : 0;
  const order =
    orderBy === "started"
      ? "s.started_at DESC, s.id"
      : "coalesce(s.last_activity_at, s.started_at) DESC, s.id";
  // Only the conditions given: `(? IS NULL OR s.source = ?)` would keep SQLite from the index on
  // the source, and a rare source would walk every session.
  const sources = source === null || source === undefined ? [] : [source];
  const where = [...sources.map(() => "s.source = ?"), ...(includeArchived ? [] : ["s.archived = 0"])];
  const params = [...sources, limit, offset];
  return yield* read(() => selectSessions(order, where, params));
}

/** The page is chosen first, by the session rows alone; the preview is read for its sessions
 * only. (In one SELECT, SQLite computes every column of every session before it sorts them: a
 * preview per session in the store for each page, when the order takes no index.) */
function* selectSessions(order: string, where: readonly string[], params: SqlValue[]): Op<SessionSummary[]> {
  const filter = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
  const rows = yield* selectText(
    // A subquery in FROM rather than a WITH: node:sqlite's wide-integer retry (drivers/
    // node-sqlite-api.ts) repeats only statements that begin with SELECT.
    (plain) => `SELECT ${sessionColumns(plain)},
         (SELECT ${previewOf("m.content")} FROM messages m
           WHERE m.session_id = s.id AND m.role = 'user' AND m.active = 1 ORDER BY m.id LIMIT 1) AS preview
       FROM (SELECT s.id FROM sessions s ${filter} ORDER BY ${order} LIMIT ? OFFSET ?) AS page
       JOIN sessions s ON s.id = page.id
       ORDER BY ${order}`,
    ...params,
  );
  return rows.map(toSessionSummary);
}

/** Change title, archived, pinned or metadata. */
export function* updateSession(id: string, given: UpdateSessionInput): Op<Session> {
  const sessionId = valid.sessionId(id, "id");
  const patch = valid.record(given, "patch", UPDATE_FIELDS);
  const sets: string[] = [];
  const values: SqlValue[] = [];
  if (patch.title !== undefined) {
    sets.push("title = ?");
    values.push(valid.optionalText(patch.title, "title", 10_000));
  }
  if (patch.archived !== undefined) {
    sets.push("archived = ?");
    values.push(valid.flag(patch.archived, "archived") ? 1 : 0);
  }
  if (patch.pinned !== undefined) {
    sets.push("pinned = ?");
    values.push(valid.flag(patch.pinned, "pinned") ? 1 : 0);
  }
  if (patch.metadata !== undefined) {
    sets.push("metadata = ?");
    values.push(valid.jsonObject(patch.metadata, "metadata"));
  }
  return yield* write(() => patchSession(sessionId, sets, values));
}

function* patchSession(id: string, sets: string[], values: SqlValue[]): Op<Session> {
  if (sets.length > 0) {
    const { changes } = yield* run(`UPDATE sessions SET ${sets.join(", ")} WHERE id = ?`, ...values, id);
    if (changes === 0) throw new SessionNotFoundError(id);
  }
  const session = yield* loadSession(id);
  if (!session) throw new SessionNotFoundError(id);
  return session;
}

/** Mark a session ended (the first end wins), at `options.at` (epoch seconds) or now. */
export function* endSession(id: string, reason: string, options?: { at?: number } | null): Op<Session> {
  const sessionId = valid.sessionId(id, "id");
  const why = valid.requiredText(reason, "reason", 1000);
  const o = valid.options(options, "endSession", ["at"]);
  const endedAt = valid.timestamp(o.at ?? undefined, "endSession.at", (yield* now()) / 1000);
  return yield* write(() => markEnded(sessionId, why, endedAt));
}

function* markEnded(id: string, why: string, endedAt: number): Op<Session> {
  const { changes } = yield* run(
    "UPDATE sessions SET ended_at = coalesce(ended_at, ?), end_reason = coalesce(end_reason, ?) WHERE id = ?",
    endedAt,
    why,
    id,
  );
  if (changes === 0) throw new SessionNotFoundError(id);
  return (yield* loadSession(id)) as Session;
}

/** Delete a session with its messages and usage; children keep living without a parent. */
export function* deleteSession(id: string): Op<number> {
  const sessionId = valid.sessionId(id, "id");
  return yield* write(() => removeSession(sessionId));
}

function* removeSession(id: string): Op<number> {
  const removed = yield* removeSessionIfPresent(id);
  if (removed === undefined) throw new SessionNotFoundError(id);
  return removed;
}

/** Inside a transaction: delete a session with its messages and usage; the number of messages
 * removed, or undefined when there is no such session. */
export function* removeSessionIfPresent(id: string): Op<number | undefined> {
  if (!(yield* get("SELECT 1 FROM sessions WHERE id = ?", id))) return undefined;
  const { changes } = yield* run("DELETE FROM messages WHERE session_id = ?", id);
  yield* run("DELETE FROM session_model_usage WHERE session_id = ?", id);
  yield* run("DELETE FROM sessions WHERE id = ?", id);
  return changes;
}
