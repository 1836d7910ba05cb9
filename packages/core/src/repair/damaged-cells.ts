/**
 * Rows whose own cell `PRAGMA integrity_check` names: "Tree 7 page 31 cell 4: invalid page number
 * …" (SQLite ≥ 3.43 names the tree, older versions say "On tree page 31 cell 4: …"). Such a row
 * still reads without an error — SQLite follows its overflow chain only as far as the payload's
 * size says, so a last overflow page written over with other bytes reads as the row's text — but
 * its bytes cannot be trusted. A VACUUM would copy them as a sound row and the repair would report
 * nothing lost; the repair counts them lost instead (the damaged file is kept beside the store).
 */
import type { SqliteDriver } from "../driver.js";
import type { Host } from "../host/host.js";
import { MESSAGES, SESSION_MODEL_USAGE, SESSIONS } from "../schema/definition.js";
import { leafCellRowid, treeHolding } from "./leaf-pages.js";

/** Rowids per canonical table name. */
export type DamagedRows = Map<string, Set<number>>;

const CANONICAL = [SESSIONS.name, MESSAGES.name, SESSION_MODEL_USAGE.name];
const CELL = /(?:Tree (\d+) page|On tree page) (\d+) cell (\d+): ([^\n]*)/g;
/** What integrity_check says of a leaf cell whose own payload is damaged: its overflow chain (a
 * leaf cell points to no other page) or its bytes past the page. Not what a page written over by
 * a copy of another makes it say, which names the intact original as readily as the copy: "Rowid
 * … out of order", or "2nd reference to page" for the overflow chain both cells point to. */
const PAYLOAD_DAMAGE = /invalid page number|overflow list length|Extends off end of page/i;

/** The rows of the store's own tables whose leaf cells `problems` (integrity_check's report on
 * the file at `path`) names as damaged. Empty when none does, or when the file cannot say: a
 * write-ahead log with pages in it (the file's copy of a page may be older), or a schema that
 * does not read. */
export function damagedRows(
  driver: SqliteDriver,
  host: Host,
  path: string,
  problems: readonly string[],
): DamagedRows {
  const rows: DamagedRows = new Map();
  const cells = [...problems.join("\n").matchAll(CELL)]
    .filter((match) => PAYLOAD_DAMAGE.test(match[4] ?? ""))
    .map((match) => ({
      tree: match[1] === undefined ? undefined : Number(match[1]),
      page: Number(match[2]),
      cell: Number(match[3]),
    }));
  if (cells.length === 0 || (host.stat(`${path}-wal`)?.size ?? 0) > 0) return rows;
  const tables = rootPages(driver, path);
  if (tables.size === 0) return rows;
  const size = host.stat(path)?.size ?? 0;
  const read = (offset: number, length: number) => host.readBytes(path, offset, length);
  for (const { tree, page, cell } of cells) {
    const root = tree ?? treeHolding(read, size, [...tables.keys()], page);
    const table = root === undefined ? undefined : tables.get(root);
    if (table === undefined) continue;
    const rowid = leafCellRowid(read, size, page, cell);
    if (rowid === undefined) continue;
    const set = rows.get(table) ?? new Set<number>();
    set.add(rowid);
    rows.set(table, set);
  }
  return rows;
}

const MISSING_FROM_INDEX = /row (\d+) missing from index (\S+)/g;

/** Rows whose own bytes changed without breaking their page: integrity_check names each as
 * "row N missing from index I" (its index entries still hold the old key) and foreign_key_check
 * names it as an orphan (the changed key refers to no row). A row merely orphaned by the loss of
 * its parent row keeps index entries that agree with it, so it is not named here and is kept.
 * Added to `rows`; nothing is added when the file cannot answer. */
export function addChangedRows(
  driver: SqliteDriver,
  path: string,
  problems: readonly string[],
  rows: DamagedRows,
): void {
  const named = [...problems.join("\n").matchAll(MISSING_FROM_INDEX)];
  if (named.length === 0) return;
  try {
    const conn = driver.open(path, { readOnly: true });
    try {
      const tableOf = new Map<string, string>();
      for (const row of conn.prepare("SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index'").all())
        tableOf.set(String(row.name), String(row.tbl_name));
      const orphans = new Set(
        conn
          .prepare("PRAGMA foreign_key_check")
          .all()
          .map((row) => `${String(row.table)} ${Number(row.rowid)}`),
      );
      for (const match of named) {
        const table = tableOf.get(match[2] ?? "");
        const rowid = Number(match[1]);
        if (table === undefined || !CANONICAL.includes(table) || !orphans.has(`${table} ${rowid}`)) continue;
        const set = rows.get(table) ?? new Set<number>();
        set.add(rowid);
        rows.set(table, set);
      }
    } finally {
      conn.close();
    }
  } catch {
    // a schema or table that does not read: the strategies' own checks still judge the rows
  }
}

/** Root page → name of each of the store's own tables in the file at `path`. */
function rootPages(driver: SqliteDriver, path: string): Map<number, string> {
  const roots = new Map<number, string>();
  try {
    const conn = driver.open(path, { readOnly: true });
    try {
      const statement = conn.prepare(
        `SELECT name, rootpage FROM sqlite_schema WHERE type = 'table' AND name IN (${CANONICAL.map(() => "?").join(", ")})`,
      );
      for (const row of statement.all(...CANONICAL)) roots.set(Number(row.rootpage), String(row.name));
    } finally {
      conn.close();
    }
  } catch {
    // a schema that does not read: no cell can be told to belong to a store table
  }
  return roots;
}

/** "messages 12, 40; sessions 3" (sorted), for a report. */
export function describeDamagedRows(rows: DamagedRows): string {
  return [...rows]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([table, ids]) => `${table} ${[...ids].sort((a, b) => a - b).join(", ")}`)
    .join("; ");
}
