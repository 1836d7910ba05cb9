/**
 * The reconciler: brings an existing store up to the definition. Runs inside the caller's init
 * transaction, which the runner opens with foreign-key enforcement off (`writeWithoutForeignKeys`),
 * so a primary-key heal's copy is not aborted by orphan rows and dropping the old table does not
 * cascade its deletes to child rows.
 */
import type { Row } from "../driver.js";
import { all, exec, get, type Op } from "../engine/effects.js";
import { isContention, SqliteError } from "../errors.js";
import { addColumnSql, createIndexSql, createTableSql, ident, textNulTriggersDdl } from "./ddl.js";
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

function* foreignKeysEnforced(): Op<boolean> {
  return Number(Object.values((yield* get("PRAGMA foreign_keys")) ?? {})[0] ?? 0) === 1;
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

/** Rebuild a table into the defined shape inside the current transaction: copy its rows into a
 * sibling of the new shape, drop it, create it again in the new shape and copy the rows back.
 * No rename: renaming the sibling would make SQLite rewrite or re-check every view and trigger
 * that names the table (the FTS source views do), which fails while the table is gone — unless
 * `legacy_alter_table` is switched on, which a libSQL server does not accept. The second copy
 * costs time only on this one-off upgrade. */
function* healTable(table: TableDef, info: Row[]): Op<void> {
  const sibling = ident(`${table.name}__sessiondb_heal`);
  const name = ident(table.name);
  yield* exec(`DROP TABLE IF EXISTS ${sibling}`);
  yield* exec(createTableSql(table, `${table.name}__sessiondb_heal`, false));
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
  yield* exec(`INSERT OR IGNORE INTO ${sibling} (${targets}) SELECT ${sources} FROM ${name}`);
  yield* exec(`DROP TABLE ${name}`);
  yield* exec(createTableSql(table, table.name, false));
  const columns = table.columns.map((column) => ident(column.name)).join(", ");
  yield* exec(`INSERT INTO ${name} (${columns}) SELECT ${columns} FROM ${sibling}`);
  yield* exec(`DROP TABLE ${sibling}`);
}

/** Create what is missing, add missing columns, heal primary keys, create indexes and the
 * text-NUL triggers (after the tables: a heal drops a table's triggers with it).
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
      // Never rebuild with enforcement on: dropping the old `sessions` would cascade to every
      // message. An engine that could not switch it off gets a warning, and the next open tries
      // again.
      if (yield* foreignKeysEnforced()) {
        warnings.push(
          `${table.name}: its primary key differs from this build's and it was not rebuilt, because foreign keys are enforced on this connection (the engine did not switch them off for the schema transaction)`,
        );
      } else {
        yield* healTable(table, info);
        info = yield* tableInfo(table.name);
      }
    }
    const present = new Set(info.map((column) => String(column.name)));
    for (const column of table.columns) {
      if (!present.has(column.name))
        yield* tryDdl(addColumnSql(table, column), warnings, /duplicate column/i);
    }
  }
  for (const index of INDEXES) yield* tryDdl(createIndexSql(index), warnings);
  for (const trigger of textNulTriggersDdl()) yield* tryDdl(trigger, warnings);
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
