/**
 * The types of `store.importSessions(items)` (its operation: store/import-sessions.ts), kept
 * below the store so that what reads them (the public API, the conformance suite) needs nothing
 * above.
 */
import type { InvalidInputError } from "../errors.js";
import type { CreateSessionInput, MessageInput } from "../model/types.js";

/** One session to import: what `createSession`, `appendMessages`, `updateSession` and
 * `endSession` would take, written together or not at all. */
export interface ImportSessionInput {
  /** The session; `id` is required (it is what makes a second run skip the session). */
  session: CreateSessionInput & { id: string };
  messages?: readonly MessageInput[];
  archived?: boolean;
  pinned?: boolean;
  /** The session's end (the first end wins, as with `endSession`). */
  ended?: { reason: string; at?: number };
}

/** Where a running import stands. */
export interface ImportSessionsProgress {
  /** Sessions dealt with so far (imported, skipped or failed), and the messages they carried. */
  sessions: number;
  messages: number;
  done: boolean;
}

export interface ImportSessionsOptions {
  /** Called after each step (one transaction of one or more whole sessions). */
  onProgress?: ((progress: ImportSessionsProgress) => void) | null | undefined;
  /** Stop between steps; the sessions imported so far stay, the rest are not read. */
  signal?: AbortSignal | null | undefined;
}

/** A session the store refused, by its place in the input (0 for the first item). */
export interface ImportFailure {
  index: number;
  /** The item's `session.id` when it had a string there. */
  sessionId?: string;
  /** What `createSession`, `appendMessages`, `updateSession` or `endSession` threw for it (its
   * `field` names the part: "source", "messages[3].content", …), or for the item's shape. */
  error: InvalidInputError;
}

export interface ImportSessionsResult {
  /** Sessions written, and the messages written with them. */
  imported: number;
  messages: number;
  /** Of `imported`: sessions that were in the store already, without messages (their stored
   * values kept, as `createSession` keeps them). */
  resumed: number;
  /** Ids of sessions already in the store with messages: left as they were. */
  skipped: string[];
  /** Ids of sessions imported without their `parentSessionId`: the parent was neither in the
   * store nor imported by this call. */
  unlinked: string[];
  failed: ImportFailure[];
  durationMs: number;
}
