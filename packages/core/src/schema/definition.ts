/**
 * The schema as data. DDL, the reconciler, the read probe and the fingerprint are all generated
 * from these definitions, so they can never disagree.
 */

/** SQLite storage class of a column. */
export type ColumnType = "TEXT" | "INTEGER" | "REAL" | "BLOB";

/** One column. */
export interface ColumnDef {
  readonly name: string;
  readonly type: ColumnType;
  /** NOT NULL (added to an existing table only when `default` is set, as SQLite requires). */
  readonly notNull?: boolean;
  /** Default as an SQL literal, e.g. `0` or `''`. */
  readonly default?: string;
  /** Foreign key: `table(column) ON DELETE …`. */
  readonly references?: { table: string; column: string; onDelete: "CASCADE" | "SET NULL" };
}

/** One table. */
export interface TableDef {
  readonly name: string;
  readonly columns: readonly ColumnDef[];
  /** Primary key columns, in order. */
  readonly primaryKey: readonly string[];
  /** `INTEGER PRIMARY KEY AUTOINCREMENT`: ids only grow (the FTS backfill relies on it). */
  readonly autoincrement?: boolean;
}

/** One index. */
export interface IndexDef {
  readonly name: string;
  readonly table: string;
  readonly columns: readonly string[];
  /** UNIQUE: a second row with the same values is refused (an append skips it). */
  readonly unique?: boolean;
  /** A partial index's condition (SQL over the table's columns): only a query whose WHERE holds
   * this same term can use the index. */
  readonly where?: string;
}

const counter = (name: string): ColumnDef => ({ name, type: "INTEGER", notNull: true, default: "0" });
const usageKey = (name: string): ColumnDef => ({ name, type: "TEXT", notNull: true, default: "''" });

export const SESSIONS: TableDef = {
  name: "sessions",
  primaryKey: ["id"],
  columns: [
    { name: "id", type: "TEXT", notNull: true },
    { name: "source", type: "TEXT", notNull: true, default: "''" },
    { name: "model", type: "TEXT" },
    { name: "model_config", type: "TEXT" },
    { name: "title", type: "TEXT" },
    {
      name: "parent_session_id",
      type: "TEXT",
      references: { table: "sessions", column: "id", onDelete: "SET NULL" },
    },
    { name: "started_at", type: "REAL", notNull: true, default: "0" },
    { name: "ended_at", type: "REAL" },
    { name: "end_reason", type: "TEXT" },
    { name: "last_activity_at", type: "REAL" },
    counter("message_count"),
    counter("tool_call_count"),
    counter("input_tokens"),
    counter("output_tokens"),
    counter("cache_read_tokens"),
    counter("cache_write_tokens"),
    counter("reasoning_tokens"),
    { name: "estimated_cost_usd", type: "REAL", notNull: true, default: "0" },
    { name: "cwd", type: "TEXT" },
    counter("archived"),
    counter("pinned"),
    { name: "metadata", type: "TEXT" },
  ],
};

export const MESSAGES: TableDef = {
  name: "messages",
  primaryKey: ["id"],
  autoincrement: true,
  columns: [
    { name: "id", type: "INTEGER" },
    {
      name: "session_id",
      type: "TEXT",
      notNull: true,
      references: { table: "sessions", column: "id", onDelete: "CASCADE" },
    },
    { name: "role", type: "TEXT", notNull: true },
    /** The searchable text; for structured content, the text extracted from its parts. */
    { name: "content", type: "TEXT" },
    /** Structured content exactly as given (JSON), when content was not a plain string. */
    { name: "content_parts", type: "TEXT" },
    { name: "tool_name", type: "TEXT" },
    { name: "tool_call_id", type: "TEXT" },
    { name: "tool_calls", type: "TEXT" },
    { name: "timestamp", type: "REAL", notNull: true, default: "0" },
    { name: "token_count", type: "INTEGER" },
    { name: "finish_reason", type: "TEXT" },
    { name: "reasoning", type: "TEXT" },
    { name: "active", type: "INTEGER", notNull: true, default: "1" },
    { name: "metadata", type: "TEXT" },
    /** The producer's id for the message (a framework's message id, a transcript line's uuid):
     * unique within its session (idx_messages_external), so a second write of it stores nothing. */
    { name: "external_id", type: "TEXT" },
    /** The item the message was made from, exactly as its producer gave it (JSON), and the name
     * of its shape ("claude-code", "ai-sdk", …): what a binding gives back, what an importer
     * keeps of the fields sessiondb has no column for. */
    { name: "original_format", type: "TEXT" },
    { name: "original", type: "TEXT" },
  ],
};

export const SESSION_MODEL_USAGE: TableDef = {
  name: "session_model_usage",
  primaryKey: ["session_id", "model", "provider", "base_url", "billing_mode", "task"],
  columns: [
    {
      name: "session_id",
      type: "TEXT",
      notNull: true,
      default: "''",
      references: { table: "sessions", column: "id", onDelete: "CASCADE" },
    },
    usageKey("model"),
    usageKey("provider"),
    usageKey("base_url"),
    usageKey("billing_mode"),
    usageKey("task"),
    counter("call_count"),
    counter("input_tokens"),
    counter("output_tokens"),
    counter("cache_read_tokens"),
    counter("cache_write_tokens"),
    counter("reasoning_tokens"),
    { name: "cost_usd", type: "REAL", notNull: true, default: "0" },
    { name: "updated_at", type: "REAL" },
  ],
};

export const STATE_META: TableDef = {
  name: "state_meta",
  primaryKey: ["key"],
  columns: [
    { name: "key", type: "TEXT", notNull: true },
    { name: "value", type: "TEXT" },
  ],
};

/** Every table, parents before children (the order DDL runs in). */
export const TABLES: readonly TableDef[] = [STATE_META, SESSIONS, MESSAGES, SESSION_MODEL_USAGE];

/** The condition of idx_messages_role, true of every row (a role is never empty): the count by
 * role names it to use that index. A range on the role, which no lookup writes. */
export const ROLE_INDEX_TERM = "role > ''";

export const INDEXES: readonly IndexDef[] = [
  { name: "idx_messages_session", table: "messages", columns: ["session_id", "id"] },
  // Partial: most messages have no external id, and they cost this index nothing.
  {
    name: "idx_messages_external",
    table: "messages",
    columns: ["session_id", "external_id"],
    unique: true,
    where: "external_id IS NOT NULL",
  },
  { name: "idx_messages_timestamp", table: "messages", columns: ["timestamp"] },
  // For store.stats()'s count by role alone: walking this index is ~15x faster than the table,
  // whose leaf pages hold the message text. Partial on a condition every row meets, so that only
  // a query naming that condition (ROLE_INDEX_TERM) can use it. Without statistics SQLite cannot
  // know that a role matches a fifth of the store: as a plain index it made lookups by session
  // and role walk every message of the role (50 sessions' previews: 2.7 s instead of 3 ms at 100k).
  { name: "idx_messages_role", table: "messages", columns: ["role"], where: ROLE_INDEX_TERM },
  { name: "idx_sessions_started", table: "sessions", columns: ["started_at"] },
  { name: "idx_sessions_activity", table: "sessions", columns: ["last_activity_at"] },
  { name: "idx_sessions_source", table: "sessions", columns: ["source", "started_at"] },
  { name: "idx_sessions_parent", table: "sessions", columns: ["parent_session_id"] },
];

/** The tables whose rows the Store reads back as objects: their TEXT columns are watched for
 * a NUL (META_TEXT_WITHOUT_NUL). */
export const READ_TABLES: readonly TableDef[] = [SESSIONS, MESSAGES, SESSION_MODEL_USAGE];

/** state_meta keys owned by the schema layer. */
export const META_FINGERPRINT = "schema_fingerprint";
export const META_SCHEMA_VERSION = "schema_version";
/** Present while no TEXT value of READ_TABLES holds a NUL: written when a store is created
 * (empty), removed by the text-NUL triggers (ddl.ts) on the first such value, whoever writes it,
 * and never written again. A store created before the triggers existed has none. */
export const META_TEXT_WITHOUT_NUL = "text_without_nul";
