/**
 * Where a SessionStore key's transcript lives: the main transcript is the sessiondb session
 * with the SDK's session id (the id Claude Code itself uses, so a session mirrored here and the
 * same session imported from `~/.claude/projects` are one session, their lines deduplicated by
 * uuid); a subagent transcript (`subpath` set) is the child session `<sessionId>/<subpath>`,
 * as the importer names a subagent file.
 */
import { InvalidInputError, type Json, type Session } from "@sessiondb/core";
import { childSessionId } from "@sessiondb/formats";
import type { SessionSummaryEntry } from "./sdk.js";

/** A checked key. */
export interface Key {
  projectKey: string;
  sessionId: string;
  subpath: string | undefined;
}

/** What this package keeps in a session's metadata, under `claudeAgentSdk`. */
export interface KeyRecord {
  projectKey: string;
  /** The main transcript's id (for a subagent's session). */
  sessionId: string;
  subpath?: string;
  /** Storage write time of the last append, epoch ms (the SDK's `mtime`). */
  mtime: number;
  /** The subagent transcripts written under a main session, in the order first written. */
  subpaths?: string[];
  /** A main transcript's summary for the SDK's listSessions, folded with each append by the
   * SDK's `foldSessionSummary` (its `mtime` is `mtime` above). */
  summary?: SessionSummaryEntry;
}

export const RECORD = "claudeAgentSdk";

export function checkKey(key: unknown, field = "key"): Key {
  if (key === null || typeof key !== "object")
    throw new InvalidInputError(field, "must be a SessionKey object");
  const k = key as { projectKey?: unknown; sessionId?: unknown; subpath?: unknown };
  if (typeof k.projectKey !== "string" || k.projectKey === "")
    throw new InvalidInputError(`${field}.projectKey`, "must be a non-empty string");
  if (typeof k.sessionId !== "string" || k.sessionId === "")
    throw new InvalidInputError(`${field}.sessionId`, "must be a non-empty string");
  if (k.subpath !== undefined && (typeof k.subpath !== "string" || k.subpath === ""))
    throw new InvalidInputError(
      `${field}.subpath`,
      "must be a non-empty string, or left out for the main transcript",
    );
  return { projectKey: k.projectKey, sessionId: k.sessionId, subpath: k.subpath as string | undefined };
}

/** The sessiondb session id of a key. */
export function sessionIdOf(key: Key): string {
  return key.subpath === undefined ? key.sessionId : childSessionId(key.sessionId, key.subpath);
}

/** The record a session carries, if this package wrote it. */
export function recordOf(session: Session | undefined): KeyRecord | undefined {
  const value = session?.metadata?.[RECORD];
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as unknown as KeyRecord)
    : undefined;
}

/** Whether a stored session may serve this key: it is the key's project's, or no project's
 * yet (a session imported from Claude Code's files, adopted by the first append). */
export function belongsTo(session: Session, key: Key): boolean {
  const record = recordOf(session);
  return record === undefined || record.projectKey === key.projectKey;
}

export function withRecord(session: Session | undefined, record: KeyRecord): { [key: string]: Json } {
  return { ...session?.metadata, [RECORD]: record as unknown as Json };
}
