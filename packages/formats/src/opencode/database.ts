/**
 * opencode's SQLite database read through a caller-given driver, opened read-only (`mode=ro`:
 * nothing is written, not even a journal; opencode may be writing meanwhile, in WAL mode, and
 * each query sees one consistent snapshot). A session's mark is computed in SQL from its rows'
 * counts, last update times and data lengths, so an unchanged session is known without reading
 * its parts.
 */
import type { SqliteDriver } from "@sessiondb/core";
import { type Obj, type OpencodeRecord, obj } from "./records.js";
import type { OpencodeSessionEntry, ReadItem } from "./source.js";

/** Every session with its mark: the session row's update time and, for its messages and for its
 * parts, how many, the last update time and the summed data length (a part that grows or
 * changes state changes its length). */
const SESSIONS = `SELECT s.*,
  s.time_updated || '/' ||
  (SELECT count(*) || ':' || coalesce(max(m.time_updated), 0) || ':' || coalesce(sum(length(m.data)), 0)
     FROM message m WHERE m.session_id = s.id) || '/' ||
  (SELECT count(*) || ':' || coalesce(max(p.time_updated), 0) || ':' || coalesce(sum(length(p.data)), 0)
     FROM part p WHERE p.session_id = s.id) AS sessiondb_mark
  FROM session s ORDER BY s.time_created, s.id`;
/** A session's messages in opencode's order, and one message's parts in theirs. */
const MESSAGES = "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id";
const PARTS = "SELECT id, data FROM part WHERE message_id = ? ORDER BY id";

export class OpencodeDatabase {
  readonly path: string;
  readonly #db: ReturnType<SqliteDriver["open"]>;

  constructor(driver: SqliteDriver, path: string) {
    this.path = path;
    this.#db = driver.open(path, { readOnly: true });
  }

  sessions(): OpencodeSessionEntry[] {
    return this.#db
      .prepare(SESSIONS)
      .all()
      .map((row) => {
        const { sessiondb_mark, ...info } = row;
        return {
          id: String(row.id),
          mark: `db:${String(sessiondb_mark)}`,
          info: info as Obj,
          where: this.path,
        };
      });
  }

  /** The session's messages with their parts, in order; a row whose `data` is no JSON object is
   * a problem naming its table and id (a message's parts go with it; a part alone is left out). */
  async *records(sessionId: string): AsyncGenerator<ReadItem> {
    const parts = this.#db.prepare(PARTS);
    for (const m of this.#db.prepare(MESSAGES).all(sessionId)) {
      const id = String(m.id);
      const data = parse(m.data);
      if (typeof data === "string") {
        yield this.#problem(`message row ${JSON.stringify(id)}: ${data}; it and its parts are left out`);
        continue;
      }
      const record: OpencodeRecord = { message: { id, sessionId, data }, parts: [] };
      for (const p of parts.all(id)) {
        const partData = parse(p.data);
        if (typeof partData === "string")
          yield this.#problem(
            `part row ${JSON.stringify(String(p.id))} of message ${JSON.stringify(id)}: ${partData}`,
          );
        else record.parts.push({ id: String(p.id), data: partData });
      }
      yield { record };
    }
  }

  close(): void {
    this.#db.close();
  }

  #problem(message: string): ReadItem {
    return { problem: { file: this.path, message } };
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
