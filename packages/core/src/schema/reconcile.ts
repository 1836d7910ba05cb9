/**
 * The reconciler: brings an existing store up to the definition. Runs inside the caller's init
 * transaction, with `PRAGMA foreign_keys=OFF` set by the caller before BEGIN (so a primary-key
 * heal's copy is not aborted by orphan rows).
 */
import type { Row } from "../driver.js";
import { all, exec, get, type Op } from "../engine/effects.js";
import { isContention, SqliteError } from "../errors.js";
import { addColumnSql, createIndexSql, createTableSql, ident } from "./ddl.js";
import { INDEXES, TABLES, type TableDef } from "./definition.js";

/** Apply one DDL statement; failures other than lock contention become warnings. */
function* tryDdl(sql: string, warnings: string[], tolerate?: RegExp): Op<void> {
  try {
    yield* exec(sql);
  } catch (error) {
    // BUSY/LOCKED: propagate so open-time patience retries the whole init.
    if (isContention(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    // A sibling opener that won the race already added it.
    if (tolerate?.test(message)) return;
    warnings.push(`${sql.split("\n")[0]}: ${message}`);
  }
}

function* tableInfo(table: string): Op<Row[]> {
  return yield* all(`PRAGMA table_info(${ident(table)})`);
}

function* tableSql(table: string): Op<string | undefined> {
  const row = yield* get("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", table);
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
function* healTable(table: TableDef, info: Row[]): Op<void> {
  const sibling = `${table.name}__sessiondb_heal`;
  yield* exec(`DROP TABLE IF EXISTS ${ident(sibling)}`);
  yield* exec(createTableSql(table, sibling, false));
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
  yield* exec(
    `INSERT OR IGNORE INTO ${ident(sibling)} (${targets}) SELECT ${sources} FROM ${ident(table.name)}`,
  );
  yield* exec(`DROP TABLE ${ident(table.name)}`);
  // Legacy rename: do not rewrite (or validate) other schema objects that mention either name.
  yield* exec("PRAGMA legacy_alter_table = ON");
  try {
    yield* exec(`ALTER TABLE ${ident(sibling)} RENAME TO ${ident(table.name)}`);
  } finally {
    yield* exec("PRAGMA legacy_alter_table = OFF");
  }
}

/** Create what is missing, add missing columns, heal primary keys, create indexes.
 * Returns warnings for failures that did not stop the init (the store then reports itself behind). */
export function* reconcileSchema(): Op<string[]> {
  const warnings: string[] = [];
  for (const table of TABLES) {
    const sql = yield* tableSql(table.name);
    if (sql === undefined) {
      yield* exec(createTableSql(table));
      continue;
    }
    let info = yield* tableInfo(table.name);
    if (needsHeal(table, info, sql)) {
      yield* healTable(table, info);
      info = yield* tableInfo(table.name);
    }
    const present = new Set(info.map((column) => String(column.name)));
    for (const column of table.columns) {
      if (!present.has(column.name))
        yield* tryDdl(addColumnSql(table, column), warnings, /duplicate column/i);
    }
  }
  for (const index of INDEXES) yield* tryDdl(createIndexSql(index), warnings);
  return warnings;
}

/** Which defined table or column a read-only connection cannot see, or undefined when none. */
export function* findMissingSchema(probe: (table: TableDef) => string): Op<string | undefined> {
  for (const table of TABLES) {
    try {
      yield* all(probe(table));
    } catch (error) {
      if (!(error instanceof SqliteError) || isContention(error)) throw error;
      const info = yield* tableInfo(table.name);
      if (info.length === 0) return table.name;
      const present = new Set(info.map((column) => String(column.name)));
      const column = table.columns.find((c) => !present.has(c.name));
      return column ? `${table.name}.${column.name}` : `${table.name} (${(error as Error).message})`;
    }
  }
  return undefined;
}
