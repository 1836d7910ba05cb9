/**
 * Hermes's `state.db` read: its sessions (the `sessions` table), each with its mark, and each
 * session's records in order — the session row itself, its `messages` by id, and its
 * `session_model_usage` rows that moved. The schema is Hermes's `SCHEMA_SQL`
 * (hermes_state_common.py); columns are read by name, so older databases that lack some read too.
 *
 * The mark is `{ messages, ended, endReason, title, usage }`: the session's largest message id
 * (messages only ever get larger ids: AUTOINCREMENT), its end, its title, and the running totals
 * of every usage row. A re-import reads the messages past the kept largest id and the usage rows
 * whose totals moved, as deltas from the kept totals (usage.ts): never counted twice.
 */
import type { Json } from "@sessiondb/core";
import type { Row, SqliteConnection } from "@sessiondb/core/driver";
import type { DatabaseRecord, DatabaseSession, SessionFacts } from "../mapped.js";
import { num, text } from "./columns.js";
import { sessionFacts } from "./session.js";
import { fromSessionRow, type Totals, totalsOf, type UsageRow, usageKey } from "./usage.js";

/** Messages read per query: a page held at a time, whatever the session's length. */
const PAGE_ROWS = 200;
/** The column of the listing query holding a session's largest message id. */
const MAX_ID = "sessiondb_max_message_id";

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export interface HermesMark {
  messages: number;
  ended: number | null;
  endReason: string | null;
  title: string | null;
  /** By usage key (usage.ts): the row's running totals. */
  usage: { [key: string]: Totals };
}

/** The sessions of a Hermes database, oldest first. */
export function* hermesSessions(db: SqliteConnection): Generator<DatabaseSession> {
  const tables = new Set(
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((r) => String(r.name)),
  );
  if (!tables.has("sessions") || !tables.has("messages"))
    throw new Error("not a Hermes state database: it has no sessions and messages tables");
  // Every column but the system prompt, which is read with the session's first record only.
  const columns = db
    .prepare("SELECT name FROM pragma_table_info('sessions')")
    .all()
    .map((r) => String(r.name))
    .filter((c) => c !== "system_prompt");
  const usage = tables.has("session_model_usage") ? usageBySession(db) : new Map<string, UsageRow[]>();
  const rows = db
    .prepare(
      `SELECT ${columns.map((c) => `s.${quote(c)}`).join(", ")}, (SELECT max(m.id) FROM messages m WHERE m.session_id = s.id) AS ${MAX_ID} FROM sessions s ORDER BY s.started_at, s.id`,
    )
    .all();
  for (const row of rows) {
    const id = text(row.id);
    if (id === undefined) continue;
    const { [MAX_ID]: maxId, ...session } = row;
    // Sessions older than the usage table keep their totals on the session row only.
    yield new HermesSession(db, id, session, num(maxId) ?? 0, usage.get(id) ?? fromSessionRow(session));
  }
}

function usageBySession(db: SqliteConnection): Map<string, UsageRow[]> {
  const bySession = new Map<string, UsageRow[]>();
  for (const row of db.prepare("SELECT * FROM session_model_usage ORDER BY rowid").all()) {
    const id = text(row.session_id);
    if (id === undefined) continue;
    const list = bySession.get(id) ?? [];
    list.push({ table: "session_model_usage", row });
    bySession.set(id, list);
  }
  return bySession;
}

class HermesSession implements DatabaseSession {
  readonly facts: SessionFacts;
  readonly mark: Json;
  readonly #mark: HermesMark;

  constructor(
    readonly db: SqliteConnection,
    readonly id: string,
    readonly row: Row,
    maxMessageId: number,
    readonly usage: UsageRow[],
  ) {
    this.facts = sessionFacts(row);
    const totals: { [key: string]: Totals } = {};
    for (const u of usage) totals[usageKey(u)] = totalsOf(u);
    this.#mark = {
      messages: maxMessageId,
      ended: num(row.ended_at) ?? null,
      endReason: text(row.end_reason) ?? null,
      title: text(row.title) ?? null,
      usage: totals,
    };
    this.mark = this.#mark as unknown as Json;
  }

  *records(since: Json | undefined): Generator<DatabaseRecord> {
    const before = readMark(since);
    if (before === undefined) {
      const row = this.db.prepare("SELECT * FROM sessions WHERE id = ?").get(this.id);
      if (row) yield { table: "sessions", rowId: this.id, value: row };
    }
    const page = this.db.prepare(
      "SELECT * FROM messages WHERE session_id = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?",
    );
    for (let after = before?.messages ?? 0; ; ) {
      const rows = page.all(this.id, after, this.#mark.messages, PAGE_ROWS);
      for (const row of rows) yield { table: "messages", rowId: num(row.id) ?? 0, value: row };
      if (rows.length < PAGE_ROWS) break;
      after = num(rows.at(-1)?.id) ?? this.#mark.messages;
    }
    for (const u of this.usage) {
      const key = usageKey(u);
      const previous = before?.usage[key];
      if (previous !== undefined && JSON.stringify(previous) === JSON.stringify(this.#mark.usage[key]))
        continue;
      yield { table: u.table, rowId: key, value: { usage: u.row, previous: previous ?? null } };
    }
  }
}

/** The mark a previous import kept, if it is one this module wrote. */
function readMark(since: Json | undefined): HermesMark | undefined {
  if (since === null || typeof since !== "object" || Array.isArray(since)) return undefined;
  const m = since as { [key: string]: Json };
  if (typeof m.messages !== "number" || m.usage === null || typeof m.usage !== "object") return undefined;
  return since as unknown as HermesMark;
}
