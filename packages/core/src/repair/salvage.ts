/**
 * The last resort: a fresh store filled row by row from whatever the damaged file still yields.
 * Each canonical table is read by rowid ranges; a range that fails is split in halves down to
 * single rowids. What SQLite cannot reach that way — every row below a damaged interior page —
 * is then looked for on the file's leaf pages themselves (leaf-pages.ts), so a damaged page costs
 * the rows on it and nothing else. Ranges still missing are looked up in the table's indexes
 * (separate b-trees, usually intact): they name exactly which message ids and sessions were lost.
 */

import { probeReadsTextWhole } from "../binding-facts.js";
import type { Row, SqliteConnection, SqliteDriver, SqlValue } from "../driver.js";
import type { Host } from "../host/host.js";
import { nulSafeColumn, text } from "../model/rows.js";
import { MESSAGES, SESSION_MODEL_USAGE, SESSIONS, type TableDef } from "../schema/definition.js";
import { createStore } from "../store.js";
import { beginTransaction, commitTransaction } from "../transaction.js";
import { message } from "./assess.js";
import type { DamagedRows } from "./damaged-cells.js";
import { leafRows, type RecordValue } from "./leaf-pages.js";
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

/**
 * Read `[lo, hi]`, splitting around failures; `take` stores each row (false: it could not). Each
 * rowid that could not be read or stored goes to `lost`, one at a time (a spread into push()
 * overflows the stack on a long list). A single rowid of a range that failed which its b-tree
 * says is not there counts as lost too: damage can hide a row from a lookup (a binary search over
 * a page with bad cells misses it), so the leaf pages are asked; one that never existed is not
 * found there and the table's indexes, when readable, leave it out of the report.
 */
function readRange(
  read: (lo: number, hi: number) => Row[],
  lo: number,
  hi: number,
  take: (row: Row) => boolean,
  lost: Range[],
  inFailedRange = false,
): void {
  let rows: Row[];
  try {
    rows = read(lo, hi);
  } catch {
    if (lo === hi) {
      lost.push([lo, lo]);
      return;
    }
    const mid = lo + Math.floor((hi - lo) / 2);
    readRange(read, lo, mid, take, lost, true);
    readRange(read, mid + 1, hi, take, lost, true);
    return;
  }
  if (inFailedRange && lo === hi && rows.length === 0) lost.push([lo, lo]);
  for (const row of rows) {
    if (take(row)) continue;
    const rowid = Number(row.__rowid);
    lost.push([rowid, rowid]);
  }
}

/** Run `insert`; false when the row breaks a constraint (a damaged file returns rows with a NULL
 * where none may be) — and true for a rowid already stored (a damaged b-tree can return one row
 * twice, or two pages can hold the same rowid: the first one read is kept). */
function tryInsert(insert: () => unknown): boolean {
  try {
    insert();
    return true;
  } catch (error) {
    return /UNIQUE|PRIMARY KEY/i.test(message(error));
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
  readonly def: TableDef;
  /** Unreadable rowid ranges. */
  lost: Range[];
  /** Rowids whose cells integrity_check named damaged: never stored, counted lost. */
  readonly damaged: ReadonlySet<number>;
  /** The table's columns as the damaged file stores them, in their order in a record. */
  readonly stored: readonly string[];
  /** The definition of each of `stored` (undefined: a column this version does not know). */
  readonly columns: ReadonlyArray<TableDef["columns"][number] | undefined>;
  /** Store a row read from a leaf page: the first `values.length` of `stored` (a row written
   * before later columns were added is shorter; those take their defaults). */
  readonly insertRecord: (rowid: number, values: readonly RecordValue[]) => void;
}

/** Copy what can be read of `def` from `src` into `dst` (same columns, rowids kept), except the
 * rows of `damagedCells`, which count as lost. */
function salvageTable(
  src: SqliteConnection,
  dst: SqliteConnection,
  def: TableDef,
  unreadable: string[],
  damagedCells: DamagedRows,
): TableResult {
  const damaged: ReadonlySet<number> = damagedCells.get(def.name) ?? new Set();
  let present: string[];
  const result: TableResult = { def, lost: [], damaged, stored: [], columns: [], insertRecord: () => {} };
  try {
    const stored = src
      .prepare(`PRAGMA table_info(${def.name})`)
      .all()
      .map((row) => String(row.name));
    present = def.columns.map((column) => column.name).filter((name) => stored.includes(name));
    if (present.length === 0) throw new Error("its definition is unreadable");
    const alias = rowidAlias(def);
    const byLength = new Map<number, (rowid: number, values: readonly RecordValue[]) => void>();
    const insertRecord = (rowid: number, values: readonly RecordValue[]) => {
      let insert = byLength.get(values.length);
      if (!insert) {
        const kept = stored
          .slice(0, values.length)
          .map((name, at) => ({ name, at }))
          .filter(({ name }) => present.includes(name) && name !== alias);
        const statement = dst.prepare(
          `INSERT INTO ${def.name}(rowid${kept.map(({ name }) => `, ${name}`).join("")}) VALUES (?${kept.map(() => ", ?").join("")})`,
        );
        insert = (id, record) => statement.run(id, ...kept.map(({ at }) => record[at] ?? null));
        byLength.set(values.length, insert);
      }
      insert(rowid, values);
    };
    const columns = stored.map((name) => def.columns.find((column) => column.name === name));
    Object.assign(result, { stored, columns, insertRecord });
    const bounds = extent(src, def.name);
    if (!bounds) return result;
    const list = present.join(", ");
    // A binding that reads TEXT only up to a NUL (Deno's node:sqlite) gets such a value as bytes,
    // decoded here: stored as read, it would have lost everything after the NUL.
    const textColumns = new Set(def.columns.filter((c) => c.type === "TEXT").map((c) => c.name));
    const whole = probeReadsTextWhole(src);
    const selected = present
      .map((name) => (whole || !textColumns.has(name) ? name : nulSafeColumn(name, name)))
      .join(", ");
    const value = (row: Row, name: string) =>
      whole || !textColumns.has(name) ? (row[name] ?? null) : text(row[name]);
    const select = src.prepare(
      `SELECT rowid AS __rowid, ${selected} FROM ${def.name} WHERE rowid BETWEEN ? AND ? ORDER BY rowid`,
    );
    // One rowid is looked up by equality: a range read steps past its last row to find the end,
    // which would fail on a damaged next page and lose a row that is intact.
    const selectOne = src.prepare(`SELECT rowid AS __rowid, ${selected} FROM ${def.name} WHERE rowid = ?`);
    const insert = dst.prepare(
      `INSERT INTO ${def.name}(rowid, ${list}) VALUES (?, ${present.map(() => "?").join(", ")})`,
    );
    const take = (row: Row) =>
      !damaged.has(Number(row.__rowid)) &&
      tryInsert(() => insert.run(row.__rowid ?? null, ...present.map((name) => value(row, name))));
    const lost: Range[] = [];
    for (let lo = bounds[0]; lo <= bounds[1]; lo += RANGE_ROWIDS) {
      const hi = Math.min(lo + RANGE_ROWIDS - 1, bounds[1]);
      readRange((a, b) => (a === b ? selectOne.all(a) : select.all(a, b)), lo, hi, take, lost);
    }
    // A page written over by another (a misdirected write) reads without an error, its own rows
    // gone: the table's indexes, separate b-trees, still list them. Those the read did not return
    // are lost too — looked for on the leaf pages, then reported.
    const listed = listedInIndexes(src, def.name, "rowid", [bounds]);
    if (listed) {
      const have = new Set(
        dst
          .prepare(`SELECT rowid AS r FROM ${def.name}`)
          .all()
          .map((row) => Number(row.r)),
      );
      for (const row of listed) {
        const rowid = Number(row.rid);
        if (!have.has(rowid)) lost.push([rowid, rowid]);
      }
    }
    result.lost = mergeRanges(lost);
  } catch (error) {
    unreadable.push(`${def.name}: ${message(error)}`);
  }
  return result;
}

/** The column that is the rowid (`INTEGER PRIMARY KEY`): a record stores NULL in its place. */
function rowidAlias(def: TableDef): string | undefined {
  const [key] = def.primaryKey;
  const column = def.columns.find((c) => c.name === key);
  return def.primaryKey.length === 1 && column?.type === "INTEGER" ? key : undefined;
}

const MIN_VALUES = 4;

/** Whether `values` has the shape of a row of `table`: a leaf page does not say whose it is, so
 * the columns decide — the rowid alias NULL, NOT NULL columns set, each value of its column's
 * storage class, and the columns a short record leaves out nullable or defaulted. Four values at
 * least: the schema's small tables (state_meta, the FTS shadow tables) have fewer. */
function hasShapeOf(table: TableResult, values: readonly RecordValue[]): boolean {
  if (values.length < MIN_VALUES || values.length > table.stored.length) return false;
  const alias = rowidAlias(table.def);
  return table.stored.every((name, at) => {
    const column = table.columns[at];
    if (!column) return true;
    if (at >= values.length) return !column.notNull || column.default !== undefined;
    const value = values[at];
    if (name === alias) return value === null;
    if (value === null) return !column.notNull;
    if (column.type === "TEXT") return typeof value === "string";
    if (column.type === "INTEGER" || column.type === "REAL")
      return typeof value === "number" || typeof value === "bigint";
    return true;
  });
}

function inRanges(ranges: readonly Range[], id: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = ranges[mid] as Range;
    if (id < a) hi = mid - 1;
    else if (id > b) lo = mid + 1;
    else return true;
  }
  return false;
}

/** `ranges` without the rowids in `found` (sorted ranges in, sorted ranges out). */
function without(ranges: readonly Range[], found: ReadonlySet<number>): Range[] {
  const ids = [...found].sort((a, b) => a - b);
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    let from = lo;
    while (next < ids.length && (ids[next] as number) < lo) next++;
    for (; next < ids.length && (ids[next] as number) <= hi; next++) {
      const id = ids[next] as number;
      if (id > from) out.push([from, id - 1]);
      from = id + 1;
    }
    if (from <= hi) out.push([from, hi]);
  }
  return out;
}

/**
 * Look for the rows of the tables' lost ranges on the file's leaf pages, store those found and
 * take them out of the lost ranges. Only a file with nothing in its write-ahead log is read so:
 * a page in the file may be older than the log's copy of it. A rowid found on two pages with
 * different values is taken from neither.
 */
function fromLeafPages(host: Host, path: string, tables: TableResult[], unreadable: string[]): void {
  const wanted = tables.filter((table) => table.lost.length > 0 && table.stored.length > 0);
  if (wanted.length === 0) return;
  if ((host.stat(`${path}-wal`)?.size ?? 0) > 0) {
    unreadable.push("leaf pages: not read, the damaged file's write-ahead log still holds pages");
    return;
  }
  const size = host.stat(path)?.size ?? 0;
  const found = new Map<TableResult, Map<number, readonly RecordValue[] | undefined>>();
  try {
    const longest = Math.max(...wanted.map((table) => table.stored.length));
    const read = (offset: number, length: number) => host.readBytes(path, offset, length);
    for (const row of leafRows(read, size, (values) => values >= MIN_VALUES && values <= longest)) {
      const table = wanted.find(
        (t) => inRanges(t.lost, row.rowid) && !t.damaged.has(row.rowid) && hasShapeOf(t, row.values),
      );
      if (!table) continue;
      const rows = found.get(table) ?? new Map<number, readonly RecordValue[] | undefined>();
      found.set(table, rows);
      const earlier = rows.get(row.rowid);
      rows.set(row.rowid, rows.has(row.rowid) && !sameValues(earlier, row.values) ? undefined : row.values);
    }
  } catch (error) {
    unreadable.push(`leaf pages: ${message(error)}`);
    return;
  }
  for (const [table, rows] of found) {
    const stored = new Set<number>();
    for (const [rowid, values] of rows) {
      if (values && tryInsert(() => table.insertRecord(rowid, values))) stored.add(rowid);
    }
    table.lost = without(table.lost, stored);
  }
}

function sameValues(a: readonly RecordValue[] | undefined, b: readonly RecordValue[]): boolean {
  if (!a || a.length !== b.length) return false;
  return a.every((value, i) => {
    const other = b[i];
    if (value instanceof Uint8Array && other instanceof Uint8Array)
      return value.length === other.length && value.every((byte, j) => byte === other[j]);
    return value === other;
  });
}

/** Sorted ranges, overlapping or adjacent ones merged. */
function mergeRanges(ranges: Range[]): Range[] {
  const merged: Range[] = [];
  for (const [lo, hi] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = merged[merged.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else merged.push([lo, hi]);
  }
  return merged;
}

/** Fill the new store at `fresh` from the damaged file at `damaged`, leaving out the rows whose
 * cells the check named (`damagedCells`, counted lost); returns what was lost. */
export function salvage(
  driver: SqliteDriver,
  host: Host,
  damaged: string,
  fresh: string,
  journalMode: "wal" | "delete",
  damagedCells: DamagedRows = new Map(),
): RepairLoss {
  createStore(driver, fresh, { host, journalMode }).close();
  const src = driver.open(damaged, { readOnly: true });
  const dst = driver.open(fresh, { readOnly: false });
  const unreadable: string[] = [];
  try {
    dst.exec("PRAGMA foreign_keys = OFF");
    beginTransaction(dst, "write");
    const sessions = salvageTable(src, dst, SESSIONS, unreadable, damagedCells);
    const messages = salvageTable(src, dst, MESSAGES, unreadable, damagedCells);
    const usage = salvageTable(src, dst, SESSION_MODEL_USAGE, unreadable, damagedCells);
    fromLeafPages(host, damaged, [sessions, messages, usage], unreadable);

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
