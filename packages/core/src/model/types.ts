/** Public shapes of the Store API (spec §8). Timestamps are epoch seconds. */

import type { Host } from "../host/host.js";
import type { JournalPolicyOptions } from "../journal.js";

/** Message roles. */
export type Role = "system" | "developer" | "user" | "assistant" | "tool";
export const ROLES: readonly Role[] = ["system", "developer", "user", "assistant", "tool"];

/** JSON-compatible value (metadata, tool calls, structured content). */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Structured content: an array or object of content parts (e.g. OpenAI `[{type:"text",text}]`). */
export type StructuredContent = Json[] | { [key: string]: Json };

/**
 * Options of `openStore`/`createStore`. Checked before anything touches the file system: a wrong
 * type, an unknown `journalMode`, or a wait that is not a finite number of milliseconds from 0 to
 * MAX_WAIT_MS (one day) is an InvalidInputError naming the option. An option given as null (or
 * the whole object as null) takes its default; keys not listed here are ignored.
 */
export interface StoreOptions extends JournalPolicyOptions {
  /** Open with `mode=ro`: no DDL, no locks, every write raises StoreReadOnlyError. */
  readOnly?: boolean | null | undefined;
  /** Patience budgets in ms for BUSY/LOCKED (defaults: open 20 s, writes 20 s, appends 60 s);
   * each 0 to MAX_WAIT_MS, 0 meaning one attempt. */
  patience?:
    | {
        openMs?: number | null | undefined;
        writeMs?: number | null | undefined;
        appendMs?: number | null | undefined;
      }
    | null
    | undefined;
  /** Wait for the FTS admission lock in rebuildFts (default 120 s; 0 to MAX_WAIT_MS). */
  admissionTimeoutMs?: number | null | undefined;
  /** Deferred FTS recovery backoff (defaults 60 s → 1 h, floor 1 s; each 0 to MAX_WAIT_MS). */
  recoveryBackoff?:
    | {
        baseMs?: number | null | undefined;
        maxMs?: number | null | undefined;
        floorMs?: number | null | undefined;
      }
    | null
    | undefined;
  /** Repair a stale or incomplete FTS index at open (non-blocking admission). Default true. */
  repairFtsOnOpen?: boolean | null | undefined;
  /** File-system host (the runtime adapters pass one): file modes, holder records, preflight. */
  host?: Host | null | undefined;
  /** Clock in ms (tests). */
  now?: (() => number) | null | undefined;
  /** What an acknowledged write survives (default "full"; see `Durability`). */
  durability?: Durability | null | undefined;
}

/**
 * What an acknowledged write survives. "full" (`synchronous=FULL`): every commit is fsynced
 * before the call returns, so nothing acknowledged is lost to anything. "normal"
 * (`synchronous=NORMAL`, WAL mode only): commits reach the WAL file without an fsync, which
 * SQLite fsyncs at each checkpoint; a crash of the process (`kill -9` included) loses nothing
 * acknowledged, as the OS holds the written pages, but an OS crash or power loss can take the
 * commits since the last checkpoint — never the file's consistency. In DELETE mode NORMAL could
 * corrupt the file on power loss, so such a store keeps "full" (`store.durability` says which).
 */
export type Durability = "full" | "normal";

/** A session to create. The optional fields take null as "none", as a session reads back. */
export interface CreateSessionInput {
  id?: string;
  source: string;
  model?: string | null;
  modelConfig?: Json;
  title?: string | null;
  parentSessionId?: string | null;
  cwd?: string | null;
  metadata?: { [key: string]: Json } | null;
  startedAt?: number;
}

export interface Session {
  id: string;
  source: string;
  model: string | null;
  modelConfig: Json | null;
  title: string | null;
  parentSessionId: string | null;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  lastActivityAt: number | null;
  messageCount: number;
  toolCallCount: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  estimatedCostUsd: number;
  cwd: string | null;
  archived: boolean;
  pinned: boolean;
  metadata: { [key: string]: Json } | null;
}

export interface SessionSummary extends Session {
  /** Last activity, falling back to the start time. */
  lastActiveAt: number;
  /** The first user message, shortened; null when there is none. */
  preview: string | null;
}

/** Options of `listSessions` (null, or an option given as null, means the default). */
export interface ListSessionsOptions {
  /** Only sessions with this source. */
  source?: string | null | undefined;
  /** At most this many (default 50): an integer from 0 to Number.MAX_SAFE_INTEGER. */
  limit?: number | null | undefined;
  /** Skip this many: an integer from 0 to Number.MAX_SAFE_INTEGER. */
  offset?: number | null | undefined;
  /** Newest start first (default) or most recent activity first. */
  orderBy?: "started" | "activity" | null | undefined;
  /** Include archived sessions (default false). */
  includeArchived?: boolean | null | undefined;
}

export interface UpdateSessionInput {
  title?: string | null;
  archived?: boolean;
  pinned?: boolean;
  metadata?: { [key: string]: Json } | null;
}

/** A message to append. The optional fields take null as "none", as a message reads back. */
export interface MessageInput {
  role: Role;
  content?: string | StructuredContent | null;
  toolName?: string | null;
  toolCallId?: string | null;
  toolCalls?: Json[] | null;
  tokenCount?: number | null;
  finishReason?: string | null;
  reasoning?: string | null;
  timestamp?: number;
  metadata?: { [key: string]: Json } | null;
  /** The producer's id for this message (at most 500 characters), unique within its session:
   * a message whose externalId the session already holds is not stored again (no row, no
   * counters, no usage), and the append returns the stored message's id. Within one call the
   * first of a repeated externalId wins. */
  externalId?: string | null;
  /** The item this message was made from, exactly as its producer gave it (a framework's
   * message, a transcript line), under the name of its shape; read back as given. */
  original?: Original | null;
  /** Usage this message reports, recorded with it (as `recordUsage` would) in the same
   * transaction, and only when the message is stored. */
  usage?: UsageInput | null;
  /** false: a row kept in the session but no part of its conversation (an item that is no
   * message, a popped one): `getMessages` leaves it out unless asked, and the session's message
   * and tool-call counters leave it out. Default true. */
  active?: boolean;
}

/** An item kept as its producer gave it, under the name of its shape. */
export interface Original {
  /** The shape's name: "claude-code", "ai-sdk", "openai-agents", … (at most 100 characters). */
  format: string;
  value: Json;
}

/** What `updateMessage` changes in a stored message; fields left out stay as they are. */
export interface MessagePatch {
  content?: string | StructuredContent | null;
  toolName?: string | null;
  toolCallId?: string | null;
  toolCalls?: Json[] | null;
  tokenCount?: number | null;
  finishReason?: string | null;
  reasoning?: string | null;
  metadata?: { [key: string]: Json } | null;
  original?: Original | null;
  active?: boolean;
}

export interface Message {
  id: number;
  sessionId: string;
  role: Role;
  content: string | StructuredContent | null;
  toolName: string | null;
  toolCallId: string | null;
  toolCalls: Json[] | null;
  timestamp: number;
  tokenCount: number | null;
  finishReason: string | null;
  reasoning: string | null;
  active: boolean;
  metadata: { [key: string]: Json } | null;
  externalId: string | null;
  original: Original | null;
}

/** Options of `getMessages` (null, or an option given as null, means the default). */
export interface GetMessagesOptions {
  /** Only messages with a larger id: an integer from 0 to Number.MAX_SAFE_INTEGER. */
  afterId?: number | null | undefined;
  /** Only messages with a smaller id: an integer from 1 to Number.MAX_SAFE_INTEGER. */
  beforeId?: number | null | undefined;
  /** At most this many, the first ones (default: all): an integer from 0 to
   * Number.MAX_SAFE_INTEGER. Not with `last`. */
  limit?: number | null | undefined;
  /** Only the last this many (still returned in id order): what an agent reads to resume its
   * context window; costs O(N) whatever the session's length. An integer from 0 to
   * Number.MAX_SAFE_INTEGER. Not with `limit`. */
  last?: number | null | undefined;
  /** Include messages marked inactive (default false). */
  includeInactive?: boolean | null | undefined;
}

export interface UsageInput {
  model: string;
  provider?: string;
  baseUrl?: string;
  billingMode?: string;
  task?: string;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  costUsd?: number;
}

export interface UsageRow {
  sessionId: string;
  model: string;
  provider: string;
  baseUrl: string;
  billingMode: string;
  task: string;
  callCount: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  costUsd: number;
  updatedAt: number | null;
}

/** One problem `checkIntegrity` found; `kind` says what it means, `message` says it in words. */
export type IntegrityProblem =
  /** The database file is damaged: a line of PRAGMA integrity_check, or a read that failed as
   * corrupt. Restore a backup or run repairStore ("sessiondb repair"). */
  | { kind: "database"; message: string }
  /** A row refers to a row of `parent` that does not exist (PRAGMA foreign_key_check): its own
   * bytes were changed on disk. Restore a backup or run repairStore ("sessiondb repair"), which
   * counts such a row lost. */
  | { kind: "orphan-row"; table: string; rowid: number; parent: string; message: string }
  /** A full-text index is damaged or out of step with its source rows (`index` names it when
   * known). store.rebuildFts() ("sessiondb fts rebuild") restores it from the rows. */
  | { kind: "fts-index"; index?: string; message: string }
  /** The full-text index is detached (stale): not corruption; search answers by LIKE until
   * store.rebuildFts() restores it. */
  | { kind: "fts-detached"; message: string };

export interface IntegrityReport {
  /** No problem of any kind (a detached index counts). */
  ok: boolean;
  problems: IntegrityProblem[];
}
