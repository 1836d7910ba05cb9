/**
 * The reconciler: brings an existing store up to the definition. Runs inside the caller's init
 * transaction, with `PRAGMA foreign_keys=OFF` set by the caller before BEGIN (so a primary-key
 * heal's copy is not aborted by orphan rows).
 */
import type { Row, SqliteConnection } from "../driver.js";
import { isContention, SqliteError } from "../errors.js";
import { addColumnSql, createIndexSql, createTableSql, ident } from "./ddl.js";
import { INDEXES, TABLES, type TableDef } from "./definition.js";

/** Apply one DDL statement; failures other than lock contention become warnings. */
function tryDdl(conn: SqliteConnection, sql: string, warnings: string[], tolerate?: RegExp): void {
  try {
    conn.exec(sql);
  } catch (error) {
    // BUSY/LOCKED: propagate so open-time patience retries the whole init.
    if (isContention(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    // A sibling opener that won the race already added it.
    if (tolerate?.test(message)) return;
    warnings.push(`${sql.split("\n")[0]}: ${message}`);
  }
}

function tableInfo(conn: SqliteConnection, table: string): Row[] {
  return conn.prepare(`PRAGMA table_info(${ident(table)})`).all();
}

function tableSql(conn: SqliteConnection, table: string): string | undefined {
  const row = conn.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
  return row ? String(row.sql ?? "") : undefined;
}

/** True when the table's primary key (or AUTOINCREMENT) differs from the definition. */
function needsHeal(table: TableDef, info: Row[], sql: string): boolean {
  const actual = info
    .filter((column) => Number(column.pk) > 0)
    .sort((a, b) => Number(a.pk) - Number(b.pk))
    .map((column) => String(column.name));
  if (actual.join(",") !== table.primaryKey.join(",")) return true;
  return Boolean(table.autoincrement) && !/AUTOINCREMENT/i.test(sql);
}

/** Rebuild a table into the defined shape inside the current transaction: create a sibling,
 * copy, drop, rename. (SQLite's documented order: renaming the old table first would make
 * SQLite rewrite child tables' foreign keys to the old name.) */
function healTable(conn: SqliteConnection, table: TableDef, info: Row[]): void {
  const sibling = `${table.name}__sessiondb_heal`;
  conn.exec(`DROP TABLE IF EXISTS ${ident(sibling)}`);
  conn.exec(createTableSql(table, sibling, false));
  const existing = new Set(info.map((column) => String(column.name)));
  const shared = table.columns.filter((column) => existing.has(column.name));
  const targets = shared.map((column) => ident(column.name)).join(", ");
  const sources = shared
    .map((column) =>
      column.notNull && column.default !== undefined
        ? `COALESCE(${ident(column.name)}, ${column.default})`
        : ident(column.name),
    )
    .join(", ");
  // OR IGNORE: rows that collapse onto one key after NULL keys become '' keep the first copy.
  conn.exec(
    `INSERT OR IGNORE INTO ${ident(sibling)} (${targets}) SELECT ${sources} FROM ${ident(table.name)}`,
  );
  conn.exec(`DROP TABLE ${ident(table.name)}`);
  // Legacy rename: do not rewrite (or validate) other schema objects that mention either name.
  conn.exec("PRAGMA legacy_alter_table = ON");
  try {
    conn.exec(`ALTER TABLE ${ident(sibling)} RENAME TO ${ident(table.name)}`);
  } finally {
    conn.exec("PRAGMA legacy_alter_table = OFF");
  }
}

/** Create what is missing, add missing columns, heal primary keys, create indexes.
 * Returns warnings for failures that did not stop the init (the store then reports itself behind). */
export function reconcileSchema(conn: SqliteConnection): string[] {
  const warnings: string[] = [];
  for (const table of TABLES) {
    const sql = tableSql(conn, table.name);
    if (sql === undefined) {
      conn.exec(createTableSql(table));
      continue;
    }
    let info = tableInfo(conn, table.name);
    if (needsHeal(table, info, sql)) {
      healTable(conn, table, info);
      info = tableInfo(conn, table.name);
    }
    const present = new Set(info.map((column) => String(column.name)));
    for (const column of table.columns) {
      if (!present.has(column.name)) tryDdl(conn, addColumnSql(table, column), warnings, /duplicate column/i);
    }
  }
  for (const index of INDEXES) tryDdl(conn, createIndexSql(index), warnings);
  return warnings;
}

/** Which defined table or column a read-only connection cannot see, or undefined when none. */
export function findMissingSchema(
  conn: SqliteConnection,
  probe: (table: TableDef) => string,
): string | undefined {
  for (const table of TABLES) {
    try {
      conn.prepare(probe(table)).all();
    } catch (error) {
      if (!(error instanceof SqliteError) || isContention(error)) throw error;
      const info = tableInfo(conn, table.name);
      if (info.length === 0) return table.name;
      const present = new Set(info.map((column) => String(column.name)));
      const column = table.columns.find((c) => !present.has(c.name));
      return column ? `${table.name}.${column.name}` : `${table.name} (${(error as Error).message})`;
    }
  }
  return undefined;
}
