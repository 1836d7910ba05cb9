/**
 * opencode's SQLite database, read on a connection the caller opened read-only (`mode=ro`:
 * nothing is written; opencode may be writing meanwhile, in WAL mode, and each query sees one
 * consistent snapshot). A session's mark is computed in SQL from its rows' counts, last update
 * times and data lengths, so an unchanged session is known without reading its parts.
 */
import type { SqliteDriver } from "@sessiondb/core";
import { addProblem, type Obj, type OpencodeRecord, type OpencodeRow, obj } from "./records.js";

/** A connection as a driver opens it. */
export type Connection = ReturnType<SqliteDriver["open"]>;

/** A session found, before its records are read. */
export interface OpencodeSessionEntry {
  id: string;
  /** Changes whenever the session gains or changes records: an unchanged one is skipped. */
  mark: string;
  /** The `session` row, or the storage session file's JSON. */
  info: Obj;
  /** The model of the session's first assistant message, when it has one. */
  firstModel?: string;
}

/** Every session with its mark: the session row's update time and, for its messages and for its
 * parts, how many, the last update time and the summed data length (a part that grows or
 * changes state changes its length); and the model of its first answer (the session is created
 * from what its listing says, and older databases have no `session.model`). */
const SESSIONS = `SELECT s.*,
  s.time_updated || '/' ||
  (SELECT count(*) || ':' || coalesce(max(m.time_updated), 0) || ':' || coalesce(sum(length(m.data)), 0)
     FROM message m WHERE m.session_id = s.id) || '/' ||
  (SELECT count(*) || ':' || coalesce(max(p.time_updated), 0) || ':' || coalesce(sum(length(p.data)), 0)
     FROM part p WHERE p.session_id = s.id) AS sessiondb_mark,
  (SELECT json_extract(m.data, '$.modelID') FROM message m
     WHERE m.session_id = s.id AND json_valid(m.data) AND json_extract(m.data, '$.role') = 'assistant'
     ORDER BY m.time_created, m.id LIMIT 1) AS sessiondb_model
  FROM session s ORDER BY s.time_created, s.id`;
/** A session's messages in opencode's order, and one message's parts in theirs. */
const MESSAGES = "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id";
const PARTS = "SELECT id, data FROM part WHERE message_id = ? ORDER BY id";

/** The database's sessions; throws when it has no opencode `session` table. */
export function databaseSessions(db: Connection): OpencodeSessionEntry[] {
  let rows: ReturnType<ReturnType<Connection["prepare"]>["all"]>;
  try {
    rows = db.prepare(SESSIONS).all();
  } catch (error) {
    if (/no such (table|column)/.test((error as Error).message))
      throw new Error(`not opencode's database: ${(error as Error).message}`);
    throw error;
  }
  return rows.map((row) => {
    const { sessiondb_mark, sessiondb_model, ...info } = row;
    const entry: OpencodeSessionEntry = {
      id: String(row.id),
      mark: `db:${String(sessiondb_mark)}`,
      info: info as Obj,
    };
    if (typeof sessiondb_model === "string") entry.firstModel = sessiondb_model;
    return entry;
  });
}

/** A session's messages with their parts, in order; a row whose `data` is no JSON object is a
 * problem of its record, naming the row. */
export function* databaseRecords(db: Connection, sessionId: string): Generator<OpencodeRow> {
  const parts = db.prepare(PARTS);
  for (const m of db.prepare(MESSAGES).all(sessionId)) {
    const id = String(m.id);
    const data = parse(m.data);
    const record: OpencodeRecord = { message: { id, sessionId, data: {} }, parts: [] };
    if (typeof data === "string") record.problems = [`message row ${JSON.stringify(id)}: ${data}`];
    else {
      record.message.data = data;
      for (const p of parts.all(id)) {
        const partData = parse(p.data);
        if (typeof partData !== "string") record.parts.push({ id: String(p.id), data: partData });
        else addProblem(record, `part row ${JSON.stringify(String(p.id))}: ${partData}`);
      }
    }
    yield { table: "message", rowId: id, value: record };
  }
}

/** A data column as an object, or what is wrong with it. */
function parse(value: unknown): Obj | string {
  if (typeof value !== "string") return "data is not text";
  try {
    const data = JSON.parse(value);
    return data !== null && typeof data === "object" && !Array.isArray(data)
      ? obj(data)
      : "data is not a JSON object";
  } catch (error) {
    return `data is not JSON (${(error as Error).message})`;
  }
}
