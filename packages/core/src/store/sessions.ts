/**
 * Sessions (spec §8): create (an upsert that never overwrites stored non-null values), read,
 * list with previews, update, end, delete. Every function validates its input before touching
 * the store, and runs through the Store's context (transactions with patience).
 */
import { MAX_SOURCE_CHARS } from "../constants.js";
import type { SqlValue } from "../driver.js";
import { InvalidInputError, SessionNotFoundError } from "../errors.js";
import type { StoreContext } from "./context.js";
import { previewOf, sessionColumns, toSession, toSessionSummary } from "./rows.js";
import type {
  CreateSessionInput,
  ListSessionsOptions,
  Session,
  SessionSummary,
  UpdateSessionInput,
} from "./types.js";
import * as valid from "./validate.js";

/** Throw SessionNotFoundError unless the session exists. */
export function requireSession(ctx: StoreContext, id: string): void {
  if (!ctx.statement("SELECT 1 FROM sessions WHERE id = ?").get(id)) throw new SessionNotFoundError(id);
}

/** Create a session, or fill in what an existing one lacks (stored non-null values are kept). */
const CREATE_FIELDS = [
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

export function createSession(ctx: StoreContext, given: CreateSessionInput): Session {
  const input = valid.record(given, "input", CREATE_FIELDS);
  const id = input.id === undefined ? globalThis.crypto.randomUUID() : valid.sessionId(input.id, "id");
  const source = valid.requiredText(input.source, "source", 200);
  const parent =
    input.parentSessionId === undefined ? null : valid.sessionId(input.parentSessionId, "parentSessionId");
  if (parent === id) throw new InvalidInputError("parentSessionId", "a session cannot be its own parent");
  const values: SqlValue[] = [
    id,
    source,
    valid.optionalText(input.model, "model", 500),
    valid.jsonValue(input.modelConfig, "modelConfig"),
    valid.optionalText(input.title, "title", 10_000),
    parent,
    valid.timestamp(input.startedAt, "startedAt", ctx.now() / 1000),
    valid.optionalText(input.cwd, "cwd", 10_000),
    valid.jsonObject(input.metadata, "metadata"),
  ];
  return ctx.write(() => {
    if (parent !== null) requireSession(ctx, parent);
    ctx
      .statement(
        `INSERT INTO sessions (id, source, model, model_config, title, parent_session_id, started_at, cwd, metadata)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET
         model = coalesce(sessions.model, excluded.model),
         model_config = coalesce(sessions.model_config, excluded.model_config),
         title = coalesce(sessions.title, excluded.title),
         parent_session_id = coalesce(sessions.parent_session_id, excluded.parent_session_id),
         cwd = coalesce(sessions.cwd, excluded.cwd),
         metadata = coalesce(sessions.metadata, excluded.metadata)`,
      )
      .run(...values);
    return loadSession(ctx, id) as Session;
  });
}

export function loadSession(ctx: StoreContext, id: string): Session | undefined {
  const row = ctx.statement(`SELECT ${sessionColumns(ctx)} FROM sessions s WHERE s.id = ?`).get(id);
  return row ? toSession(row) : undefined;
}

/** The session, or undefined. */
export function getSession(ctx: StoreContext, id: string): Session | undefined {
  const sessionId = valid.sessionId(id, "id");
  return ctx.read(() => loadSession(ctx, sessionId));
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
export function listSessions(ctx: StoreContext, options?: ListSessionsOptions | null): SessionSummary[] {
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
  return ctx.read(() =>
    ctx
      .statement(
        `SELECT ${sessionColumns(ctx)},
         (SELECT ${previewOf("m.content")} FROM messages m
           WHERE m.session_id = s.id AND m.role = 'user' AND m.active = 1 ORDER BY m.id LIMIT 1) AS preview
       FROM sessions s
       WHERE (? IS NULL OR s.source = ?) AND (? = 1 OR s.archived = 0)
       ORDER BY ${order} LIMIT ? OFFSET ?`,
      )
      .all(source, source, includeArchived, limit, offset)
      .map(toSessionSummary),
  );
}

/** Change title, archived, pinned or metadata. */
export function updateSession(ctx: StoreContext, id: string, given: UpdateSessionInput): Session {
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
  return ctx.write(() => {
    if (sets.length > 0) {
      const { changes } = ctx.conn
        .prepare(`UPDATE sessions SET ${sets.join(", ")} WHERE id = ?`)
        .run(...values, sessionId);
      if (changes === 0) throw new SessionNotFoundError(sessionId);
    }
    const session = loadSession(ctx, sessionId);
    if (!session) throw new SessionNotFoundError(sessionId);
    return session;
  });
}

/** Mark a session ended (the first end wins), at `options.at` (epoch seconds) or now. */
export function endSession(
  ctx: StoreContext,
  id: string,
  reason: string,
  options?: { at?: number } | null,
): Session {
  const sessionId = valid.sessionId(id, "id");
  const why = valid.requiredText(reason, "reason", 1000);
  const o = valid.options(options, "endSession", ["at"]);
  const now = valid.timestamp(o.at ?? undefined, "endSession.at", ctx.now() / 1000);
  return ctx.write(() => {
    const { changes } = ctx
      .statement(
        "UPDATE sessions SET ended_at = coalesce(ended_at, ?), end_reason = coalesce(end_reason, ?) WHERE id = ?",
      )
      .run(now, why, sessionId);
    if (changes === 0) throw new SessionNotFoundError(sessionId);
    return loadSession(ctx, sessionId) as Session;
  });
}

/** Delete a session with its messages and usage; children keep living without a parent. */
export function deleteSession(ctx: StoreContext, id: string): number {
  const sessionId = valid.sessionId(id, "id");
  return ctx.write(() => {
    requireSession(ctx, sessionId);
    const { changes } = ctx.statement("DELETE FROM messages WHERE session_id = ?").run(sessionId);
    ctx.statement("DELETE FROM session_model_usage WHERE session_id = ?").run(sessionId);
    ctx.statement("DELETE FROM sessions WHERE id = ?").run(sessionId);
    return changes;
  });
}
