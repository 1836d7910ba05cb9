/**
 * What both importers (engine.ts for line formats, database.ts for database formats) take and
 * give: the store they write to, their options, their result and its problems.
 */
import type { CreateSessionInput, Json, MessageInput, Session, SqliteDriver } from "@sessiondb/core";

/** What importFrom needs of a store: a sync Store and an AsyncStore both are one. */
export interface ImportTarget {
  getSession(id: string): Session | undefined | Promise<Session | undefined>;
  createSession(input: CreateSessionInput): Session | Promise<Session>;
  updateSession(
    id: string,
    patch: { title?: string | null; metadata?: { [key: string]: Json } | null },
  ): unknown;
  endSession(id: string, reason: string, options?: { at?: number }): unknown;
  appendMessages(id: string, rows: MessageInput[]): number[] | Promise<number[]>;
  getMessages(
    id: string,
    options: { last: number; includeInactive: boolean },
  ): { id: number }[] | Promise<{ id: number }[]>;
  listSessions(options: {
    source: string;
    limit: number;
    includeArchived: boolean;
  }): Session[] | Promise<Session[]>;
}

export interface ImportProblem {
  /** The session file or database the problem is in. */
  file: string;
  /** The line's number, when the problem is one line's. */
  line?: number;
  /** The table and row id, when the problem is one database row's. */
  table?: string;
  row?: string | number;
  message: string;
}

export interface ImportProgress {
  files: number;
  filesTotal: number;
  messages: number;
  /** Database formats: the sessions looked at so far and in all (a database is one file). */
  sessions?: number;
  sessionsTotal?: number;
}

export interface ImportOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
  /** The home directory the format's default roots are under (default: the user's). */
  home?: string;
  /** The environment a format's own variables are read from (HERMES_HOME; default: the
   * process's). */
  env?: { [name: string]: string | undefined };
  /** Usage without a cost of its own gets one estimated from the price table (default true). */
  estimateCosts?: boolean;
  /** The SQLite driver a database format's files are opened with, read-only: the runtime's
   * (`resolveDriver()` of @sessiondb/node, @sessiondb/bun or @sessiondb/deno). Needed by
   * database formats only. */
  driver?: SqliteDriver;
}

export interface ImportResult {
  /** Session files (line formats) or databases (database formats). */
  /** `resumed`: line formats only, the files read only from where the last run stopped. */
  files: { total: number; read: number; unchanged: number; resumed?: number };
  /** `unchanged`: database formats only, sessions skipped since their mark had not moved.
   * `linked`: line formats only, sessions read before their parent was in the store, given it
   * now. */
  sessions: { created: number; grown: number; unchanged?: number; linked?: number };
  /** Rows stored by this run (inactive ones included). */
  messages: number;
  /** Lines or rows whose type the mapper does not know, by type: kept as inactive rows. */
  unknown: Record<string, number>;
  problems: ImportProblem[];
  /** Files whose last line had no newline yet: left for the next run. */
  partial: number;
  /** Usage records of models the price table does not have, by model: stored without a cost. */
  unpriced: Record<string, number>;
}

export function emptyResult(): ImportResult {
  return {
    files: { total: 0, read: 0, unchanged: 0 },
    sessions: { created: 0, grown: 0 },
    messages: 0,
    unknown: {},
    problems: [],
    partial: 0,
    unpriced: {},
  };
}
