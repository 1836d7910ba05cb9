/**
 * The last resort: a fresh store filled row by row from whatever the damaged file still yields.
 * Each canonical table is read by rowid ranges; a range that fails is split in halves down to
 * single rowids, so one damaged page costs the rows on it and nothing else. Ranges that cannot
 * be read are then looked up in the table's indexes (separate b-trees, usually intact): they
 * name exactly which message ids and which sessions were lost.
 */
import type { Row, SqliteConnection, SqliteDriver, SqlValue } from "../driver.js";
import type { Host } from "../host/host.js";
import { MESSAGES, SESSION_MODEL_USAGE, SESSIONS, type TableDef } from "../schema/definition.js";
import { createStore } from "../store.js";
import { beginTransaction, commitTransaction } from "../transaction.js";
import { message } from "./assess.js";
import type { RepairLoss } from "./types.js";

/** Rowids per read: big enough to be quick, small enough that a failure is cheap to split. */
const RANGE_ROWIDS = 1000;

type Range = [number, number];

const first = (row: Row | undefined): SqlValue | undefined => (row ? Object.values(row)[0] : undefined);

/** Merge sorted rowids into inclusive ranges. */
function toRanges(ids: number[]): Range[] {
  const ranges: Range[] = [];
  for (const id of ids) {
    const last = ranges[ranges.length - 1];
    if (last && id === last[1] + 1) last[1] = id;
    else ranges.push([id, id]);
  }
  return ranges;
}

/** Indexes SQLite keeps on `table` in the damaged file (the autoindex of a TEXT key included). */
function indexesOf(src: SqliteConnection, table: string): string[] {
  try {
    return src
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?")
      .all(table)
      .map((row) => String(row.name));
  } catch {
    return [];
  }
}

/** The table's smallest and largest rowid: from its own b-tree, else (AUTOINCREMENT) from
 * 1 to the highest id ever handed out, else from any index on it. */
function extent(src: SqliteConnection, table: string): Range | undefined {
  const queries = [
    `SELECT min(rowid) AS lo, max(rowid) AS hi FROM ${table}`,
    `SELECT 1 AS lo, seq AS hi FROM sqlite_sequence WHERE name = '${table}'`,
    ...indexesOf(src, table).map(
      (name) => `SELECT min(rowid) AS lo, max(rowid) AS hi FROM ${table} INDEXED BY "${name}"`,
    ),
  ];
  for (const sql of queries) {
    try {
      const row = src.prepare(sql).get();
      if (row === undefined) continue;
      if (row.lo === null) return undefined;
      return [Number(row.lo), Number(row.hi)];
    } catch {
      // that b-tree is damaged too: try the next
    }
  }
  throw new Error(`no b-tree of ${table} can say which rowids it holds`);
}

/** Read `[lo, hi]`, splitting around failures; calls `take` per row and appends each unreadable
 * rowid to `lost` (one at a time: a spread into push() overflows the stack on a long list). */
function readRange(
  read: (lo: number, hi: number) => Row[],
  lo: number,
  hi: number,
  take: (row: Row) => void,
  lost: Range[],
): void {
  try {
    for (const row of read(lo, hi)) take(row);
  } catch {
    if (lo === hi) {
      lost.push([lo, lo]);
      return;
    }
    const mid = lo + Math.floor((hi - lo) / 2);
    readRange(read, lo, mid, take, lost);
    readRange(read, mid + 1, hi, take, lost);
  }
}

/** Ids a still-readable index lists in `ranges`: `columns` of each, or undefined when none can. */
function listedInIndexes(
  src: SqliteConnection,
  table: string,
  columns: string,
  ranges: Range[],
): Row[] | undefined {
  for (const index of indexesOf(src, table)) {
    try {
      const statement = src.prepare(
        `SELECT rowid AS rid, ${columns} FROM ${table} INDEXED BY "${index}" WHERE rowid BETWEEN ? AND ? ORDER BY rowid`,
      );
      return ranges.flatMap(([lo, hi]) => statement.all(lo, hi));
    } catch {
      // this index does not cover `columns`, or is damaged too
    }
  }
  return undefined;
}

interface TableResult {
  /** Unreadable rowid ranges. */
  lost: Range[];
}

/** Copy what can be read of `def` from `src` into `dst` (same columns, rowids kept). */
function salvageTable(
  src: SqliteConnection,
  dst: SqliteConnection,
  def: TableDef,
  unreadable: string[],
): TableResult {
  let present: string[];
  try {
    const stored = new Set(
      src
        .prepare(`PRAGMA table_info(${def.name})`)
        .all()
        .map((row) => String(row.name)),
    );
    present = def.columns.map((column) => column.name).filter((name) => stored.has(name));
    if (present.length === 0) throw new Error("its definition is unreadable");
    const bounds = extent(src, def.name);
    if (!bounds) return { lost: [] };
    const list = present.join(", ");
    const select = src.prepare(
      `SELECT rowid AS __rowid, ${list} FROM ${def.name} WHERE rowid BETWEEN ? AND ? ORDER BY rowid`,
    );
    // One rowid is looked up by equality: a range read steps past its last row to find the end,
    // which would fail on a damaged next page and lose a row that is intact.
    const selectOne = src.prepare(`SELECT rowid AS __rowid, ${list} FROM ${def.name} WHERE rowid = ?`);
    const insert = dst.prepare(
      `INSERT INTO ${def.name}(rowid, ${list}) VALUES (?, ${present.map(() => "?").join(", ")})`,
    );
    const take = (row: Row) => insert.run(row.__rowid ?? null, ...present.map((name) => row[name] ?? null));
    const lost: Range[] = [];
    for (let lo = bounds[0]; lo <= bounds[1]; lo += RANGE_ROWIDS) {
      const hi = Math.min(lo + RANGE_ROWIDS - 1, bounds[1]);
      readRange((a, b) => (a === b ? selectOne.all(a) : select.all(a, b)), lo, hi, take, lost);
    }
    return { lost: mergeRanges(lost) };
  } catch (error) {
    unreadable.push(`${def.name}: ${message(error)}`);
    return { lost: [] };
  }
}

function mergeRanges(ranges: Range[]): Range[] {
  const merged: Range[] = [];
  for (const [lo, hi] of ranges) {
    const last = merged[merged.length - 1];
    if (last && lo === last[1] + 1) last[1] = hi;
    else merged.push([lo, hi]);
  }
  return merged;
}

/** Fill the new store at `fresh` from the damaged file at `damaged`; returns what was lost. */
export function salvage(
  driver: SqliteDriver,
  host: Host,
  damaged: string,
  fresh: string,
  journalMode: "wal" | "delete",
): RepairLoss {
  createStore(driver, fresh, { host, journalMode }).close();
  const src = driver.open(damaged, { readOnly: true });
  const dst = driver.open(fresh, { readOnly: false });
  const unreadable: string[] = [];
  try {
    dst.exec("PRAGMA foreign_keys = OFF");
    beginTransaction(dst, "write");
    const sessions = salvageTable(src, dst, SESSIONS, unreadable);
    const messages = salvageTable(src, dst, MESSAGES, unreadable);
    const usage = salvageTable(src, dst, SESSION_MODEL_USAGE, unreadable);

    const lostSessions = (listedInIndexes(src, SESSIONS.name, "id", sessions.lost) ?? []).map((row) =>
      String(row.id),
    );
    const lostMessages = listedInIndexes(src, MESSAGES.name, "session_id", messages.lost);
    const messageIdRanges = lostMessages
      ? toRanges(lostMessages.map((row) => Number(row.rid)))
      : messages.lost;

    // Rows whose session row was lost keep a placeholder session (foreign keys hold again);
    // a parent that was lost is forgotten, as deleting it would have done.
    const orphans = dst
      .prepare(
        `SELECT session_id AS id FROM ${MESSAGES.name} WHERE session_id NOT IN (SELECT id FROM ${SESSIONS.name})
         UNION SELECT session_id FROM ${SESSION_MODEL_USAGE.name} WHERE session_id NOT IN (SELECT id FROM ${SESSIONS.name})`,
      )
      .all()
      .map((row) => String(row.id));
    const placeholder = dst.prepare(
      `INSERT INTO ${SESSIONS.name}(id, source, title) VALUES (?, 'recovered', 'recovered by sessiondb repair')`,
    );
    for (const id of orphans) placeholder.run(id);
    dst.exec(
      `UPDATE ${SESSIONS.name} SET parent_session_id = NULL WHERE parent_session_id NOT IN (SELECT id FROM ${SESSIONS.name})`,
    );
    // Message ids only ever grow: a lost id at the top must not be handed out again.
    let sequence = 0;
    try {
      sequence = Number(
        first(src.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").get(MESSAGES.name)) ?? 0,
      );
    } catch {
      // the sequence table is damaged: the highest id seen stands in for it
    }
    const highest = Math.max(sequence, ...messages.lost.map(([, hi]) => hi));
    if (highest > 0) {
      dst.prepare("DELETE FROM sqlite_sequence WHERE name = ?").run(MESSAGES.name);
      dst
        .prepare(
          "INSERT INTO sqlite_sequence(name, seq) VALUES (?, (SELECT max(coalesce(max(id), 0), ?) FROM messages))",
        )
        .run(MESSAGES.name, highest);
    }
    commitTransaction(dst);
    return {
      sessions: [...new Set([...lostSessions, ...orphans])].sort(),
      messageIdRanges,
      messagesLost: lostMessages?.length,
      sessionsWithLostMessages: [
        ...new Set((lostMessages ?? []).map((row) => String(row.session_id))),
      ].sort(),
      usageRowidRanges: usage.lost,
      placeholderSessions: orphans.sort(),
      unreadable,
    };
  } finally {
    src.close();
    dst.close();
  }
}
