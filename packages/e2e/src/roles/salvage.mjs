/**
 * Salvage read: what a store file still holds, read row by row with plain SQLite (Node +
 * better-sqlite3, none of sessiondb's code), so it can judge sessiondb's own repair. Every
 * message id up to past the highest one anyone could have used is looked up on its own
 * (`WHERE id = ?` walks the table's b-tree from the root), so a damaged page costs the rows on
 * it and an error there is counted, not fatal; likewise every session rowid. Also records what
 * `PRAGMA integrity_check` and FTS5's integrity-check say. Run it on a copy: a writable open may
 * roll back a hot journal or rebuild the WAL index.
 *
 * Writes `cfg.out`: { openError?, integrity, fts, sessions, messages: [{ id, session, role,
 * token, sha, intact }], unreadable }. `intact`: the body is exactly the one its token's writer
 * appended (null when no writer intended that token).
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { makeContent } from "./lib/content.mjs";
import { readLedger } from "./lib/ledger.mjs";

const HEAD = /^(zq[0-9a-z]+) /;
/** Ids looked up past the highest one known: appends nobody acknowledged may sit there. */
const MARGIN = 512;
const FTS_TABLES = ["messages_fts", "messages_fts_trigram"];

/** The first value of the first row, or undefined when the query fails. */
function tryValue(db, sql) {
  try {
    const row = db.prepare(sql).raw().get();
    return row?.[0];
  } catch {
    return undefined;
  }
}

function readMessages(db, ledger, highest) {
  const messages = [];
  let unreadable = 0;
  let lookup;
  try {
    lookup = db.prepare("SELECT session_id, role, content FROM messages WHERE id = ?");
  } catch {
    return { messages, unreadable: -1 };
  }
  let last = highest;
  for (let id = 1; id <= last + MARGIN; id++) {
    let row;
    try {
      row = lookup.get(id);
    } catch {
      unreadable++;
      continue;
    }
    if (!row) continue;
    last = Math.max(last, id);
    const content = typeof row.content === "string" ? row.content : String(row.content);
    const token = HEAD.exec(content)?.[1];
    const intent = token ? ledger.intents.get(token) : undefined;
    messages.push({
      id,
      session: row.session_id,
      role: row.role,
      token,
      sha: createHash("sha256").update(content).digest("hex"),
      intact: intent
        ? intent.role === row.role && content === makeContent(token, intent.role, intent.len)
        : null,
    });
  }
  return { messages, unreadable };
}

function readSessions(db) {
  const sessions = [];
  let lookup;
  try {
    lookup = db.prepare("SELECT id FROM sessions WHERE rowid = ?");
  } catch {
    return sessions;
  }
  const highest = Number(tryValue(db, "SELECT max(rowid) FROM sessions") ?? 0);
  for (let rowid = 1; rowid <= highest + MARGIN; rowid++) {
    try {
      const row = lookup.get(rowid);
      if (row) sessions.push(row.id);
    } catch {
      // a damaged page: the sessions on it are not there to salvage
    }
  }
  return sessions;
}

export async function salvage({ cfg, report }) {
  const Database = createRequire(join(cfg.repoRoot, "package.json"))("better-sqlite3");
  const ledger = readLedger(cfg.reportsDir);
  const out = { integrity: [], fts: {}, sessions: [], messages: [], unreadable: 0 };
  let db;
  try {
    db = new Database(cfg.store, { fileMustExist: true });
    db.pragma("busy_timeout = 5000");
  } catch (error) {
    out.openError = String(error.message);
  }
  if (db) {
    try {
      try {
        out.integrity = db
          .pragma("integrity_check(200)", { simple: false })
          .map((r) => String(Object.values(r)[0]))
          .filter((line) => line !== "ok");
      } catch (error) {
        out.integrity = [`integrity_check failed: ${error.message}`];
      }
      for (const table of FTS_TABLES) {
        try {
          db.prepare(`INSERT INTO ${table}(${table}, rank) VALUES ('integrity-check', 1)`).run();
          out.fts[table] = "ok";
        } catch (error) {
          out.fts[table] = String(error.message);
        }
      }
      const highest = Math.max(
        0,
        ...[...ledger.acks.values()],
        Number(tryValue(db, "SELECT max(id) FROM messages") ?? 0),
        Number(tryValue(db, "SELECT seq FROM sqlite_sequence WHERE name = 'messages'") ?? 0),
      );
      Object.assign(out, readMessages(db, ledger, highest));
      out.sessions = readSessions(db);
    } finally {
      db.close();
    }
  }
  writeFileSync(cfg.out, JSON.stringify(out));
  report.event("salvaged", {
    openError: out.openError,
    integrity: out.integrity.length,
    fts: out.fts,
    sessions: out.sessions.length,
    messages: out.messages.length,
    unreadable: out.unreadable,
  });
}
