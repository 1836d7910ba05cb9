/**
 * Where a single append's time goes, and the fixed cost of a search, by subtraction: variants
 * that each add one thing, on fresh files of their own, taking turns of 10 calls in a rotating
 * order (so the machine's other load hits all alike). Prints one JSON line of trimmed means (µs,
 * each variant's slowest tenth left out). Not part of `npm run bench`; HISTORY.md's profile table
 * comes from it.
 * Usage: <runtime> dist/proc/profile.js <target> <dir> [appends per variant]
 *
 * Appends (each variant = the previous one plus one thing):
 *   peer        the hand-written store, WAL + NORMAL: one autocommit INSERT, one FTS5 index
 *   sql-1-index our schema through the raw binding, the store's SQL (BEGIN IMMEDIATE, the
 *               session counters' UPDATE, the INSERT, COMMIT), the trigram trigger dropped; NORMAL
 *   sql         the same with both FTS indexes fed (what the store sends), NORMAL
 *   store       store.appendMessage, durability "normal"
 *   store-full  store.appendMessage, durability "full" (the default)
 * Search: store.search of a word no message holds, against the raw MATCH of it on the same index
 * (the route's statement, LIMIT 20): the difference is the store's fixed cost per search.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { MessageInput } from "@sessiondb/core";
import { alternate } from "../alternate.js";
import { loadEngine, type TargetId } from "../engine.js";
import { handWrittenStore } from "../peers/hand-written.js";
import {
  RAW_INSERT_MESSAGE_SQL,
  RAW_UPDATE_SESSION_SQL,
  rawInsertArgs,
  rawUpdateArgs,
  sampleMessages,
} from "../raw-append.js";
import { trimmedMean } from "../stats.js";

const [target, dir, count = "1000"] = process.argv.slice(2) as [TargetId, string, string?];
const calls = Number(count);
const engine = await loadEngine(target);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const SESSION = "profile";
const messages: MessageInput[] = sampleMessages(calls, 777, true);
const file = (name: string) => join(dir, `${name}.db`);

/** A store file with our schema and the session; with `oneIndex`, the trigram index unfed. */
function rawStoreSql(name: string, oneIndex: boolean) {
  const setup = engine.openStore(file(name));
  setup.createSession({ id: SESSION, source: "bench" });
  setup.close();
  const db = engine.openRaw(file(name));
  db.exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
  if (oneIndex) {
    const triggers = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' AND sql LIKE '%AFTER INSERT%' AND sql LIKE '%messages_fts_trigram%'",
      )
      .all();
    if (triggers.length !== 1)
      throw new Error(`expected one trigram insert trigger, found ${triggers.length}`);
    db.exec(`DROP TRIGGER "${String(triggers[0]?.name)}"`);
  }
  const update = db.prepare(RAW_UPDATE_SESSION_SQL);
  const insert = db.prepare(RAW_INSERT_MESSAGE_SQL);
  return {
    db,
    append: (batch: MessageInput[]) => {
      const t = Date.now() / 1000;
      db.exec("BEGIN IMMEDIATE");
      update.run(...rawUpdateArgs(SESSION, batch, t));
      for (const m of batch) insert.run(...rawInsertArgs(SESSION, m, t));
      db.exec("COMMIT");
    },
  };
}

const peer = handWrittenStore(engine.openRaw(file("peer")), "normal");
const oneIndex = rawStoreSql("sql-1-index", true);
const both = rawStoreSql("sql", false);
const normal = engine.openStore(file("store"), { durability: "normal" });
const full = engine.openStore(file("store-full"));
for (const s of [normal, full]) s.createSession({ id: SESSION, source: "bench" });
const sides = {
  peer: (batch: MessageInput[]) => peer.append(SESSION, batch[0] as MessageInput),
  "sql-1-index": oneIndex.append,
  sql: both.append,
  store: (batch: MessageInput[]) => void normal.appendMessage(SESSION, batch[0] as MessageInput),
  "store-full": (batch: MessageInput[]) => void full.appendMessage(SESSION, batch[0] as MessageInput),
};
const appends = alternate(sides, Object.keys(sides) as (keyof typeof sides)[], messages, calls, 1, 10);

// The search's fixed cost: a word in no message, so neither side ranks or reads rows.
const MISSING = "zqxjkvbw";
const match = both.db.prepare(
  `SELECT m.id, snippet(messages_fts, 0, '«', '»', '…', 16) AS snippet
   FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ? ORDER BY rank LIMIT 20`,
);
const searches = alternate(
  {
    store: () => void normal.search(MISSING),
    raw: () => void match.all(MISSING),
  },
  ["store", "raw"] as const,
  [0],
  calls * 2,
  1,
  10,
);
for (const s of [normal, full]) s.close();
for (const db of [oneIndex.db, both.db]) db.close();
peer.close();
rmSync(dir, { recursive: true, force: true });
const us = (samples: number[]) => Math.round(trimmedMean(samples, 0.1) * 1000);
process.stdout.write(
  `${JSON.stringify({
    target,
    runtime: engine.runtime,
    calls,
    appendUs: Object.fromEntries(Object.entries(appends).map(([k, v]) => [k, us(v as number[])])),
    searchUs: { store: us(searches.store), raw: us(searches.raw) },
  })}\n`,
);
