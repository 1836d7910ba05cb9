/**
 * The session store a TypeScript developer would write by hand instead of using sessiondb, on the
 * target's own raw binding (better-sqlite3 on Node 20): one messages table with an index for a
 * session's messages, one FTS5 index over the text fed by a trigger, WAL, and the durability
 * given. No session rows, counters, usage or checks — what issue 37 compares with. With
 * `substring`, also what the same developer adds for substring and CJK search, which unicode61
 * cannot answer: a trigram FTS5 index over the rows that are not tool output, as ours holds.
 */
import type { MessageInput } from "@sessiondb/core";
import type { RawDb, RawStatement } from "../engine.js";

export type PeerDurability = "full" | "normal";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS messages (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  role TEXT NOT NULL,
  content TEXT,
  tool_name TEXT,
  tool_call_id TEXT,
  tool_calls TEXT,
  created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_session ON messages (session_id, id);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(content, content='messages', content_rowid='id');
CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
END;`;

/** The trigram index of a hand-written store with substring search: content of non-tool rows. */
const SUBSTRING_SCHEMA = `
CREATE VIRTUAL TABLE IF NOT EXISTS messages_trigram USING fts5(content, content='messages', content_rowid='id', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS messages_trigram_insert AFTER INSERT ON messages WHEN new.role <> 'tool' BEGIN
  INSERT INTO messages_trigram (rowid, content) VALUES (new.id, new.content);
END;`;

const INSERT_SQL = `INSERT INTO messages (session_id, role, content, tool_name, tool_call_id, tool_calls, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?)`;

/** The first page of a search: the same shape as the store's hits (ids, session, role, time,
 * tool, snippet), best first. `LIMIT ?` last, so every hit is the same statement without it. */
export const PEER_SEARCH_SQL = `SELECT m.id, m.session_id, m.role, m.created_at, m.tool_name,
  snippet(messages_fts, 0, '«', '»', '…', 16) AS snippet
  FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
  WHERE messages_fts MATCH ? ORDER BY rank`;

const RESUME_SQL = `SELECT id, role, content, tool_name, tool_call_id, tool_calls, created_at
  FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?`;

export interface HandWrittenStore {
  /** One message, one autocommit INSERT (what `db.prepare(…).run(…)` per message is). */
  append(sessionId: string, message: MessageInput): void;
  /** Several messages in one transaction. */
  appendMany(sessionId: string, messages: readonly MessageInput[]): void;
  /** Up to `limit` hits of an FTS5 query, best first (no limit: every hit). */
  search(match: string, limit?: number): Record<string, unknown>[];
  /** A session's last `n` messages, oldest first. */
  last(sessionId: string, n: number): Record<string, unknown>[];
  close(): void;
}

function args(sessionId: string, m: MessageInput, t: number): unknown[] {
  const content = typeof m.content === "string" || m.content == null ? m.content : JSON.stringify(m.content);
  return [
    sessionId,
    m.role,
    content ?? null,
    m.toolName ?? null,
    m.toolCallId ?? null,
    m.toolCalls ? JSON.stringify(m.toolCalls) : null,
    m.timestamp ?? t,
  ];
}

/** Open (creating) the hand-written store on `db`, a raw connection the store then owns;
 * `substring` adds the trigram index (on creation only: it is not filled from rows already there). */
export function handWrittenStore(db: RawDb, durability: PeerDurability, substring = false): HandWrittenStore {
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${durability.toUpperCase()};`);
  db.exec(SCHEMA);
  if (substring) db.exec(SUBSTRING_SCHEMA);
  const insert = db.prepare(INSERT_SQL);
  const page = db.prepare(`${PEER_SEARCH_SQL} LIMIT ?`);
  const every = db.prepare(PEER_SEARCH_SQL);
  const resume = db.prepare(RESUME_SQL);
  const statements: RawStatement[] = [insert, page, every, resume];
  return {
    append(sessionId, message) {
      insert.run(...args(sessionId, message, Date.now() / 1000));
    },
    appendMany(sessionId, messages) {
      const t = Date.now() / 1000;
      db.exec("BEGIN IMMEDIATE");
      try {
        for (const m of messages) insert.run(...args(sessionId, m, t));
        db.exec("COMMIT");
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
    },
    search: (match, limit) => (limit === undefined ? every.all(match) : page.all(match, limit)),
    last: (sessionId, n) => resume.all(sessionId, n).reverse(),
    close() {
      for (const statement of statements) statement.finalize?.();
      db.close();
    },
  };
}

/** Rows copied per transaction when filling a hand-written store from a sessiondb file. */
const COPY_CHUNK = 2000;

/**
 * Give the hand-written store every message of the sessiondb store `source` (a raw connection to
 * its file), in id order, in transactions of COPY_CHUNK rows: the same corpus in both.
 */
export function copyMessages(source: RawDb, target: RawDb): number {
  const read = source.prepare(
    `SELECT id, session_id, role, content, tool_name, tool_call_id, tool_calls, timestamp
     FROM messages WHERE id > ? ORDER BY id LIMIT ${COPY_CHUNK}`,
  );
  const insert = target.prepare(
    `INSERT INTO messages (id, session_id, role, content, tool_name, tool_call_id, tool_calls, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let after = 0;
  let copied = 0;
  try {
    for (;;) {
      const rows = read.all(after);
      if (rows.length === 0) return copied;
      target.exec("BEGIN");
      for (const r of rows) {
        insert.run(
          r.id,
          r.session_id,
          r.role,
          r.content,
          r.tool_name,
          r.tool_call_id,
          r.tool_calls,
          r.timestamp,
        );
      }
      target.exec("COMMIT");
      copied += rows.length;
      after = Number(rows.at(-1)?.id);
    }
  } finally {
    read.finalize?.();
    insert.finalize?.();
  }
}

/** Bytes of a database's pages in use (its file less the free pages, WAL checkpointed first). */
export function bytesInUse(db: RawDb): number {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const value = (sql: string) => {
    const statement = db.prepare(sql);
    try {
      return Number(Object.values(statement.get() ?? {})[0]);
    } finally {
      statement.finalize?.();
    }
  };
  return (value("PRAGMA page_count") - value("PRAGMA freelist_count")) * value("PRAGMA page_size");
}
