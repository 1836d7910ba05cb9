/**
 * The types of `store.deleteSessions(ids)` (its operation: store/delete-sessions.ts), kept below
 * the store so that what reads them (the public API, the conformance suite) needs nothing above.
 */

/** Where a running `deleteSessions` stands. */
export interface DeleteSessionsProgress {
  /** Sessions deleted so far, and their messages. */
  sessions: number;
  messages: number;
  /** Distinct ids asked for (deleted, missing or still to come). */
  totalSessions: number;
  done: boolean;
}

export interface DeleteSessionsOptions {
  /** Called after each step (one transaction of one or more whole sessions). */
  onProgress?: ((progress: DeleteSessionsProgress) => void) | null | undefined;
  /** Stop between steps; the sessions deleted so far stay deleted, the rest are untouched. */
  signal?: AbortSignal | null | undefined;
}

export interface DeleteSessionsResult {
  /** Sessions deleted, and the messages deleted with them. */
  sessions: number;
  messages: number;
  /** Ids that named no session when their turn came (never existed, or deleted meanwhile). */
  notFound: string[];
  durationMs: number;
}
