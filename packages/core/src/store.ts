/**
 * The Store: the public API of spec §8. It owns the connection, the transaction runner with
 * patience, and input validation; schema, FTS, locks and journal policy live below it.
 */
import {
  APPEND_PATIENCE_MS,
  CHECKPOINT_EVERY_WRITES,
  OPEN_PATIENCE_MS,
  WRITE_PATIENCE_MS,
} from "./constants.js";
import type { SqliteConnection, SqliteDriver, SqliteStatement, SqlValue } from "./driver.js";
import {
  hasResultCode,
  InvalidInputError,
  SessionNotFoundError,
  StoreClosedError,
  StoreCorruptError,
  StoreReadOnlyError,
} from "./errors.js";
import type { FtsStatus, RebuildResult, SearchOptions, SearchResult } from "./fts/index.js";
import { FTS_STATE_KEYS, FtsIndex, ftsFingerprintText, ftsNeedsRepair } from "./fts/index.js";
import type { Host } from "./host/host.js";
import { checkJournalSafety, passiveCheckpoint, readJournalMode, readSqliteVersion } from "./journal.js";
import { describeAdmissionHolder } from "./locks/admission.js";
import { type PatienceOptions, withPatience } from "./locks/patience.js";
import { META_FINGERPRINT } from "./schema/definition.js";
import { schemaFingerprint } from "./schema/fingerprint.js";
import type { StoreContext, WriteOptions } from "./store/context.js";
import {
  configureConnection,
  hasRollbackJournal,
  initializeSchema,
  openFailure,
  preflight,
  probeReadOnly,
  protectFiles,
  readMeta,
  readOnlyBlockedReason,
  refuseNewerSchema,
  rollbackQuietly,
} from "./store/open.js";
import {
  MESSAGE_COLUMNS,
  SESSION_COLUMNS,
  toMessage,
  toSession,
  toSessionSummary,
  toUsageRow,
} from "./store/rows.js";
import type {
  CreateSessionInput,
  GetMessagesOptions,
  IntegrityReport,
  ListSessionsOptions,
  Message,
  MessageInput,
  Session,
  SessionSummary,
  StoreOptions,
  UpdateSessionInput,
  UsageInput,
  UsageRow,
} from "./store/types.js";
import * as valid from "./store/validate.js";

const FINGERPRINT = schemaFingerprint(ftsFingerprintText());

/** Open (creating or upgrading when writable) the store at `path` through `driver`. */
export function createStore(driver: SqliteDriver, path: string, options: StoreOptions = {}): Store {
  return new Store(driver, path, options);
}

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
}

/** A sessiondb store on one SQLite file. Synchronous; one connection; not thread-shared. */
export class Store {
  /** Path of the database file. */
  readonly path: string;
  /** True when opened read-only. */
  readonly readOnly: boolean;
  /** Journal mode in effect ("wal" or "delete"). */
  readonly journalMode: string;
  /** Version of the SQLite library the driver runs. */
  readonly sqliteVersion: string;
  /** Name of the driver, e.g. "better-sqlite3". */
  readonly driverName: string;
  /** Schema reconcile problems from this open; non-empty means the store is behind this build. */
  readonly schemaWarnings: readonly string[];

  readonly #conn: SqliteConnection;
  readonly #host: Host | undefined;
  readonly #statements = new Map<string, SqliteStatement>();
  readonly #patience: { openMs: number; writeMs: number; appendMs: number };
  readonly #now: () => number;
  readonly #fts: FtsIndex;
  #closed = false;
  #corrupt: StoreCorruptError | undefined;
  #writesSinceCheckpoint = 0;
  #wrote = false;

  constructor(driver: SqliteDriver, path: string, options: StoreOptions = {}) {
    if (typeof path !== "string") throw new TypeError("store path must be a string");
    this.path = path;
    this.readOnly = options.readOnly === true;
    this.driverName = driver.name;
    this.#host = options.host;
    this.#now = options.now ?? Date.now;
    this.#patience = {
      openMs: options.patience?.openMs ?? OPEN_PATIENCE_MS,
      writeMs: options.patience?.writeMs ?? WRITE_PATIENCE_MS,
      appendMs: options.patience?.appendMs ?? APPEND_PATIENCE_MS,
    };
    preflight(path, this.readOnly, this.#host);
    let conn: SqliteConnection | undefined;
    let repairPending = false;
    try {
      conn = driver.open(path, { readOnly: this.readOnly });
      this.#conn = conn;
      const ready = conn;
      // Even `select sqlite_version()` reads the schema first, which a DELETE-mode writer's
      // exclusive lock blocks: the open patience covers it like the rest of the open.
      this.sqliteVersion = withPatience(
        () => {
          configureConnection(ready, this.readOnly);
          return readSqliteVersion(ready);
        },
        this.#readPatience(this.#patience.openMs, "open"),
      );
      this.#fts = new FtsIndex(this.#context(driver), {
        admissionTimeoutMs: options.admissionTimeoutMs,
        recovery: options.recoveryBackoff,
      });
      const opened = this.readOnly ? this.#openReadOnly() : this.#openWritable(options);
      this.journalMode = opened.journalMode;
      this.schemaWarnings = opened.warnings;
      repairPending = opened.repairPending;
    } catch (error) {
      try {
        conn?.close();
      } catch {
        // the open already failed; report that failure
      }
      throw openFailure(path, error, this.readOnly, this.#host);
    }
    if (repairPending && options.repairFtsOnOpen !== false) this.#fts.repairAtOpen();
  }

  #openReadOnly(): { journalMode: string; warnings: string[]; repairPending: boolean } {
    return withPatience(
      () => {
        probeReadOnly(this.#conn);
        return { journalMode: readJournalMode(this.#conn), warnings: [], repairPending: false };
      },
      this.#readPatience(this.#patience.openMs, "open"),
    );
  }

  #openWritable(options: StoreOptions): { journalMode: string; warnings: string[]; repairPending: boolean } {
    const policy = { ...options, sqliteVersion: options.sqliteVersion ?? this.sqliteVersion };
    return withPatience(
      () => {
        const journalMode = checkJournalSafety(this.#conn, policy);
        // Fast path: one query; a current store runs no DDL and takes no write lock.
        const meta = readMeta(this.#conn, FTS_STATE_KEYS);
        refuseNewerSchema(meta);
        if (meta?.get(META_FINGERPRINT) === FINGERPRINT) {
          return { journalMode, warnings: [], repairPending: ftsNeedsRepair(meta) };
        }
        const result = initializeSchema(this.#conn, policy, {
          fingerprint: FINGERPRINT,
          installFts: () => this.#fts.install(),
        });
        protectFiles(this.path, this.#host);
        // The install marks a trigger-less index stale, so repair runs on this open or the next.
        return { ...result, repairPending: true };
      },
      { budgetMs: this.#patience.openMs, jitter: "open" },
    );
  }

  /** The view of this store that the modules below it get. */
  #context(driver: SqliteDriver): StoreContext {
    return {
      conn: this.#conn,
      driver,
      path: this.path,
      readOnly: this.readOnly,
      host: this.#host,
      statement: (sql) => this.#statement(sql),
      write: (fn, options) => this.#write(fn, options),
      read: (fn) => this.#read(fn),
      now: () => this.#now(),
    };
  }

  #statement(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#conn.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreClosedError();
  }

  #assertWritable(): void {
    this.#assertOpen();
    if (this.readOnly) throw new StoreReadOnlyError("it was opened with { readOnly: true }");
    if (this.#corrupt) throw this.#corrupt;
  }

  /** One `BEGIN IMMEDIATE … COMMIT`, the whole callback retried on BUSY/LOCKED. */
  #write<T>(fn: () => T, options?: WriteOptions): T {
    this.#assertWritable();
    let failedOpen = false;
    for (;;) {
      try {
        const result = withPatience(() => this.#transaction(fn), {
          budgetMs: options?.patienceMs ?? this.#patience.writeMs,
          jitter: "write",
          describeHolder: () => describeAdmissionHolder(this.path, this.#host),
        });
        this.#afterCommit();
        return result;
      } catch (error) {
        // FTS-scoped corruption: the index is detached and the canonical write retried once.
        if (!failedOpen && this.#fts.failOpen(error)) {
          failedOpen = true;
          continue;
        }
        throw this.#classifyFailure(error);
      }
    }
  }

  #transaction<T>(fn: () => T): T {
    this.#conn.exec("BEGIN IMMEDIATE");
    try {
      const result = fn();
      this.#conn.exec("COMMIT");
      return result;
    } catch (error) {
      rollbackQuietly(this.#conn);
      throw error;
    }
  }

  #afterCommit(): void {
    this.#wrote = true;
    this.#writesSinceCheckpoint++;
    if (this.#writesSinceCheckpoint >= CHECKPOINT_EVERY_WRITES && this.journalMode === "wal") {
      this.#writesSinceCheckpoint = 0;
      passiveCheckpoint(this.#conn);
    }
  }

  /** Patience for reads. A read-only connection that meets a hot rollback journal (a DELETE-mode
   * writer died mid-transaction) gets SQLITE_READONLY: the next writable connection rolls the
   * journal back, so that is waited for like a lock. */
  #readPatience(budgetMs: number, jitter: "open" | "write"): PatienceOptions {
    if (!this.readOnly) return { budgetMs, jitter };
    return {
      budgetMs,
      jitter,
      retryable: (error) => hasResultCode(error, "READONLY") && hasRollbackJournal(this.path, this.#host),
      describeHolder: () =>
        hasRollbackJournal(this.path, this.#host)
          ? `Cause: ${readOnlyBlockedReason(this.path, this.#host)}.`
          : undefined,
    };
  }

  #read<T>(fn: () => T): T {
    this.#assertOpen();
    try {
      return withPatience(fn, this.#readPatience(this.#patience.writeMs, "write"));
    } catch (error) {
      throw this.#classifyFailure(error);
    }
  }

  /** READONLY → StoreReadOnlyError; structural corruption → sticky StoreCorruptError. */
  #classifyFailure(error: unknown): unknown {
    if (hasResultCode(error, "READONLY")) {
      return new StoreReadOnlyError(`SQLite refused the write (${error.message})`, { cause: error });
    }
    if (hasResultCode(error, "CORRUPT", "NOTADB")) {
      this.#corrupt ??= new StoreCorruptError(error.message, { cause: error });
      return this.#corrupt;
    }
    return error;
  }

  #requireSession(id: string): void {
    if (!this.#statement("SELECT 1 FROM sessions WHERE id = ?").get(id)) throw new SessionNotFoundError(id);
  }

  #nowSeconds(): number {
    return this.#now() / 1000;
  }

  // ── sessions ──────────────────────────────────────────────────────────────────────────────

  /** Create a session, or fill in what an existing one lacks (stored non-null values are kept). */
  createSession(input: CreateSessionInput): Session {
    if (!input || typeof input !== "object") throw new InvalidInputError("input", "expected an object");
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
      valid.timestamp(input.startedAt, "startedAt", this.#nowSeconds()),
      valid.optionalText(input.cwd, "cwd", 10_000),
      valid.jsonObject(input.metadata, "metadata"),
    ];
    return this.#write(() => {
      if (parent !== null) this.#requireSession(parent);
      this.#statement(
        `INSERT INTO sessions (id, source, model, model_config, title, parent_session_id, started_at, cwd, metadata)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET
           model = coalesce(sessions.model, excluded.model),
           model_config = coalesce(sessions.model_config, excluded.model_config),
           title = coalesce(sessions.title, excluded.title),
           parent_session_id = coalesce(sessions.parent_session_id, excluded.parent_session_id),
           cwd = coalesce(sessions.cwd, excluded.cwd),
           metadata = coalesce(sessions.metadata, excluded.metadata)`,
      ).run(...values);
      return this.#loadSession(id) as Session;
    });
  }

  #loadSession(id: string): Session | undefined {
    const row = this.#statement(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.id = ?`).get(id);
    return row ? toSession(row) : undefined;
  }

  /** The session, or undefined. */
  getSession(id: string): Session | undefined {
    const sessionId = valid.sessionId(id, "id");
    return this.#read(() => this.#loadSession(sessionId));
  }

  /** Sessions, newest first, with message count, last activity and a preview. */
  listSessions(options: ListSessionsOptions = {}): SessionSummary[] {
    const source = valid.optionalText(options.source, "source", 200);
    const limit = valid.count(options.limit, "limit") ?? 50;
    const offset = valid.count(options.offset, "offset") ?? 0;
    const orderBy = options.orderBy ?? "started";
    if (orderBy !== "started" && orderBy !== "activity") {
      throw new InvalidInputError("orderBy", 'expected "started" or "activity"');
    }
    const includeArchived = options.includeArchived === true ? 1 : 0;
    const order =
      orderBy === "started"
        ? "s.started_at DESC, s.id"
        : "coalesce(s.last_activity_at, s.started_at) DESC, s.id";
    return this.#read(() =>
      this.#statement(
        `SELECT ${SESSION_COLUMNS},
           (SELECT substr(m.content, 1, 200) FROM messages m
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
  updateSession(id: string, patch: UpdateSessionInput): Session {
    const sessionId = valid.sessionId(id, "id");
    if (!patch || typeof patch !== "object") throw new InvalidInputError("patch", "expected an object");
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
    return this.#write(() => {
      if (sets.length > 0) {
        const { changes } = this.#conn
          .prepare(`UPDATE sessions SET ${sets.join(", ")} WHERE id = ?`)
          .run(...values, sessionId);
        if (changes === 0) throw new SessionNotFoundError(sessionId);
      }
      const session = this.#loadSession(sessionId);
      if (!session) throw new SessionNotFoundError(sessionId);
      return session;
    });
  }

  /** Mark a session ended (the first end wins). */
  endSession(id: string, reason: string): Session {
    const sessionId = valid.sessionId(id, "id");
    const why = valid.requiredText(reason, "reason", 1000);
    const now = this.#nowSeconds();
    return this.#write(() => {
      const { changes } = this.#statement(
        "UPDATE sessions SET ended_at = coalesce(ended_at, ?), end_reason = coalesce(end_reason, ?) WHERE id = ?",
      ).run(now, why, sessionId);
      if (changes === 0) throw new SessionNotFoundError(sessionId);
      return this.#loadSession(sessionId) as Session;
    });
  }

  /** Delete a session with its messages and usage; children keep living without a parent. */
  deleteSession(id: string): number {
    const sessionId = valid.sessionId(id, "id");
    return this.#write(() => {
      this.#requireSession(sessionId);
      const { changes } = this.#statement("DELETE FROM messages WHERE session_id = ?").run(sessionId);
      this.#statement("DELETE FROM session_model_usage WHERE session_id = ?").run(sessionId);
      this.#statement("DELETE FROM sessions WHERE id = ?").run(sessionId);
      return changes;
    });
  }

  // ── messages ──────────────────────────────────────────────────────────────────────────────

  #validMessage(input: MessageInput, field: string): ValidMessage {
    if (!input || typeof input !== "object" || Array.isArray(input))
      throw new InvalidInputError(field, "expected an object");
    const body = valid.content(input.content, `${field}.content`);
    const toolCalls = valid.jsonArray(input.toolCalls, `${field}.toolCalls`);
    return {
      role: valid.role(input.role, `${field}.role`),
      text: body.text,
      parts: body.parts,
      toolName: valid.optionalText(input.toolName, `${field}.toolName`, 500),
      toolCallId: valid.optionalText(input.toolCallId, `${field}.toolCallId`, 500),
      toolCalls: toolCalls.text,
      toolCallCount: toolCalls.length,
      timestamp: valid.timestamp(input.timestamp, `${field}.timestamp`, this.#nowSeconds()),
      tokenCount: valid.count(input.tokenCount, `${field}.tokenCount`),
      finishReason: valid.optionalText(input.finishReason, `${field}.finishReason`, 200),
      reasoning: valid.optionalText(input.reasoning, `${field}.reasoning`, 16 * 1024 * 1024),
      metadata: valid.jsonObject(input.metadata, `${field}.metadata`),
    };
  }

  /** Append one message; returns its id. */
  appendMessage(sessionId: string, message: MessageInput): number {
    return this.appendMessages(sessionId, [message])[0] as number;
  }

  /** Append messages in one transaction; returns their ids in order. */
  appendMessages(sessionId: string, messages: MessageInput[]): number[] {
    const id = valid.sessionId(sessionId);
    if (!Array.isArray(messages)) throw new InvalidInputError("messages", "expected an array");
    const rows = messages.map((message, i) => this.#validMessage(message, `messages[${i}]`));
    if (rows.length === 0) return [];
    const toolCalls = rows.reduce((sum, row) => sum + row.toolCallCount, 0);
    const latest = Math.max(...rows.map((row) => row.timestamp));
    return this.#write(
      () => {
        // The counter update doubles as the existence check: no row changed, no session.
        const { changes } = this.#statement(
          `UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ?,
             last_activity_at = max(coalesce(last_activity_at, ?), ?) WHERE id = ?`,
        ).run(rows.length, toolCalls, latest, latest, id);
        if (changes === 0) throw new SessionNotFoundError(id);
        const insert = this.#statement(
          `INSERT INTO messages (session_id, role, content, content_parts, tool_name, tool_call_id, tool_calls,
             timestamp, token_count, finish_reason, reasoning, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        return rows.map(
          (row) =>
            insert.run(
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
            ).lastInsertRowid,
        );
      },
      { patienceMs: this.#patience.appendMs },
    );
  }

  /** Messages of a session in order. */
  getMessages(sessionId: string, options: GetMessagesOptions = {}): Message[] {
    const id = valid.sessionId(sessionId);
    const afterId = valid.count(options.afterId, "afterId") ?? 0;
    const limit = valid.count(options.limit, "limit") ?? -1;
    const includeInactive = options.includeInactive === true ? 1 : 0;
    return this.#read(() => {
      this.#requireSession(id);
      return this.#statement(
        `SELECT ${MESSAGE_COLUMNS} FROM messages
         WHERE session_id = ? AND id > ? AND (? = 1 OR active = 1) ORDER BY id LIMIT ?`,
      )
        .all(id, afterId, includeInactive, limit)
        .map(toMessage);
    });
  }

  /** Number of stored messages, in one session or in the whole store. */
  messageCount(sessionId?: string): number {
    if (sessionId === undefined) {
      return this.#read(() => Number(this.#statement("SELECT count(*) AS n FROM messages").get()?.n ?? 0));
    }
    const id = valid.sessionId(sessionId);
    return this.#read(() => {
      this.#requireSession(id);
      return Number(
        this.#statement("SELECT count(*) AS n FROM messages WHERE session_id = ?").get(id)?.n ?? 0,
      );
    });
  }

  // ── usage ─────────────────────────────────────────────────────────────────────────────────

  /** Add token and cost counters for one (model, provider, base URL, billing mode, task). */
  recordUsage(sessionId: string, usage: UsageInput): void {
    const id = valid.sessionId(sessionId);
    if (!usage || typeof usage !== "object") throw new InvalidInputError("usage", "expected an object");
    const key = [
      valid.requiredText(usage.model, "usage.model", 500),
      valid.optionalText(usage.provider, "usage.provider", 500) ?? "",
      valid.optionalText(usage.baseUrl, "usage.baseUrl", 2000) ?? "",
      valid.optionalText(usage.billingMode, "usage.billingMode", 200) ?? "",
      valid.optionalText(usage.task, "usage.task", 200) ?? "",
    ];
    const counters = [
      valid.count(usage.inputTokens, "usage.inputTokens") ?? 0,
      valid.count(usage.outputTokens, "usage.outputTokens") ?? 0,
      valid.count(usage.cacheReadTokens, "usage.cacheReadTokens") ?? 0,
      valid.count(usage.cacheWriteTokens, "usage.cacheWriteTokens") ?? 0,
      valid.count(usage.reasoningTokens, "usage.reasoningTokens") ?? 0,
    ];
    const cost = valid.amount(usage.costUsd, "usage.costUsd");
    const now = this.#nowSeconds();
    this.#write(() => {
      const { changes } = this.#statement(
        `UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
           cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
           reasoning_tokens = reasoning_tokens + ?, estimated_cost_usd = estimated_cost_usd + ? WHERE id = ?`,
      ).run(...counters, cost, id);
      if (changes === 0) throw new SessionNotFoundError(id);
      this.#statement(
        `INSERT INTO session_model_usage (session_id, model, provider, base_url, billing_mode, task, call_count,
           input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(session_id, model, provider, base_url, billing_mode, task) DO UPDATE SET
           call_count = call_count + 1,
           input_tokens = input_tokens + excluded.input_tokens,
           output_tokens = output_tokens + excluded.output_tokens,
           cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
           cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
           reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
           cost_usd = cost_usd + excluded.cost_usd,
           updated_at = excluded.updated_at`,
      ).run(id, ...key, ...counters, cost, now);
    });
  }

  /** Usage rows of a session. */
  getUsage(sessionId: string): UsageRow[] {
    const id = valid.sessionId(sessionId);
    return this.#read(() => {
      this.#requireSession(id);
      return this.#statement(
        "SELECT * FROM session_model_usage WHERE session_id = ? ORDER BY model, provider, base_url, billing_mode, task",
      )
        .all(id)
        .map(toUsageRow);
    });
  }

  // ── full-text search (delegated to the FTS module) ──────────────────────────────────────

  /** Search messages; the result names the route that served it. */
  search(query: string, options?: SearchOptions): SearchResult {
    this.#assertOpen();
    return this.#fts.search(query, options);
  }

  /** State of the full-text index. */
  ftsStatus(): FtsStatus {
    this.#assertOpen();
    return this.#fts.status();
  }

  /** Full FTS rebuild under the cross-process admission lock (fail-closed). */
  rebuildFts(options?: { timeoutMs?: number }): RebuildResult {
    this.#assertWritable();
    return this.#fts.rebuild(options);
  }

  /** Begin a chunked, resumable backfill of the index. */
  startFtsBackfill(): void {
    this.#assertWritable();
    this.#fts.startBackfill();
  }

  /** Index one chunk of the backfill window; true while work remains. */
  ftsBackfillStep(options?: { chunkRows?: number }): boolean {
    this.#assertWritable();
    return this.#fts.backfillStep({ chunkIds: options?.chunkRows });
  }

  /** Run the backfill to completion, yielding between chunks. */
  backfillFts(options?: {
    onProgress?: (progress: { indexed: number; total: number; done: boolean }) => void;
    signal?: AbortSignal;
    chunkRows?: number;
  }): Promise<void> {
    this.#assertWritable();
    return this.#fts.backfill({
      onProgress: options?.onProgress,
      signal: options?.signal,
      chunkIds: options?.chunkRows,
    });
  }

  /** Merge the FTS b-trees (FTS5 'optimize'). */
  optimizeFts(): void {
    this.#assertWritable();
    this.#fts.optimize();
  }

  /** Retry a deferred FTS rebuild if due (call from the host's periodic tick); true when rebuilt. */
  retryDeferredFtsRecovery(): boolean {
    this.#assertOpen();
    if (this.readOnly || this.#corrupt) return false;
    return this.#fts.retryDeferredRecovery();
  }

  /** Periodic upkeep: deferred FTS recovery, a PASSIVE checkpoint, a bounded merge, one backfill step. */
  maintenanceTick(): void {
    this.#assertOpen();
    if (this.readOnly || this.#corrupt) return;
    this.#fts.retryDeferredRecovery();
    if (this.journalMode === "wal") passiveCheckpoint(this.#conn);
    this.#fts.merge();
    if (this.#fts.backfillPending()) this.#fts.backfillStep();
  }

  /** `PRAGMA integrity_check`, FTS5 integrity-check on both indexes, docsize = source counts.
   * Reports corruption as problems rather than throwing (a damaged page can make the checks fail). */
  checkIntegrity(): IntegrityReport {
    this.#assertOpen();
    const problems: string[] = [];
    const attempt = (what: string, check: () => string[]) => {
      try {
        problems.push(...check());
      } catch (error) {
        const corrupt =
          error instanceof StoreCorruptError ||
          hasResultCode(error, "CORRUPT", "CORRUPT_VTAB", "NOTADB", "IOERR", "NOMEM");
        if (!corrupt) throw error;
        problems.push(`${what}: ${(error as Error).message}`);
      }
    };
    attempt("integrity_check", () =>
      withPatience(
        () =>
          this.#conn
            .prepare("PRAGMA integrity_check")
            .all()
            .map((row) => String(Object.values(row)[0]))
            .filter((line) => line !== "ok"),
        { budgetMs: this.#patience.writeMs, jitter: "write" },
      ),
    );
    attempt("FTS integrity", () => this.#fts.integrityProblems());
    return { ok: problems.length === 0, problems };
  }

  /** Close the store (PASSIVE checkpoint first when this store wrote). Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      // Only a connection that wrote has WAL frames of its own to move; a reader's close stays cheap.
      if (this.#wrote && !this.#corrupt && this.journalMode === "wal") passiveCheckpoint(this.#conn);
    } finally {
      this.#statements.clear();
      this.#conn.close();
    }
  }
}
