/** Pure SQL generation from the schema definition: nothing here touches a connection. */
import {
  type ColumnDef,
  INDEXES,
  type IndexDef,
  META_TEXT_WITHOUT_NUL,
  READ_TABLES,
  STATE_META,
  TABLES,
  type TableDef,
} from "./definition.js";

/** Quote an identifier for SQLite. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Column clause for CREATE TABLE, or for ADD COLUMN (NOT NULL only with a default there). */
export function columnSql(table: TableDef, column: ColumnDef, forAddColumn = false): string {
  const parts = [ident(column.name), column.type];
  if (table.autoincrement && table.primaryKey.length === 1 && table.primaryKey[0] === column.name) {
    parts.push("PRIMARY KEY AUTOINCREMENT");
  }
  const notNull = column.notNull && (!forAddColumn || column.default !== undefined);
  if (notNull) parts.push("NOT NULL");
  if (column.default !== undefined) parts.push(`DEFAULT ${column.default}`);
  if (column.references) {
    const { table: parent, column: key, onDelete } = column.references;
    parts.push(`REFERENCES ${ident(parent)}(${ident(key)}) ON DELETE ${onDelete}`);
  }
  return parts.join(" ");
}

/** CREATE TABLE for `table` under `name` (the heal creates a sibling under another name). */
export function createTableSql(table: TableDef, name = table.name, ifNotExists = true): string {
  const lines = table.columns.map((column) => `  ${columnSql(table, column)}`);
  if (!table.autoincrement) lines.push(`  PRIMARY KEY (${table.primaryKey.map(ident).join(", ")})`);
  return `CREATE TABLE ${ifNotExists ? "IF NOT EXISTS " : ""}${ident(name)} (\n${lines.join(",\n")}\n)`;
}

/** CREATE [UNIQUE] INDEX IF NOT EXISTS. */
export function createIndexSql(index: IndexDef): string {
  const where = index.where ? ` WHERE ${index.where}` : "";
  return `CREATE ${index.unique ? "UNIQUE " : ""}INDEX IF NOT EXISTS ${ident(index.name)} ON ${ident(index.table)}(${index.columns.map(ident).join(", ")})${where}`;
}

/** ALTER TABLE … ADD COLUMN. */
export function addColumnSql(table: TableDef, column: ColumnDef): string {
  return `ALTER TABLE ${ident(table.name)} ADD COLUMN ${columnSql(table, column, true)}`;
}

/** INSERT of one row of `table` (every column, in order, as parameters) that updates the non-key
 * columns of the row already there with the same primary key. */
export function upsertSql(table: TableDef): string {
  const names = table.columns.map((column) => ident(column.name));
  const keys = table.primaryKey.map(ident);
  const updates = names.filter((name) => !keys.includes(name)).map((name) => `${name} = excluded.${name}`);
  return `INSERT INTO ${ident(table.name)} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")}) ON CONFLICT (${keys.join(", ")}) DO UPDATE SET ${updates.join(", ")}`;
}

/** Set one state_meta key: run with (key, value). */
export const UPSERT_META_SQL = upsertSql(STATE_META);
/** Remove one state_meta key: run with (key). */
export const DELETE_META_SQL = `DELETE FROM ${ident(STATE_META.name)} WHERE ${ident("key")} = ?`;

/**
 * The two triggers that remove META_TEXT_WITHOUT_NUL when a row of `table` gets a TEXT value
 * holding a NUL — after an insert, and after an update that names a TEXT column (the counter
 * updates every append makes name none, so they never fire it). A trigger sees every writer:
 * this build, an older one, another program. The scan is a byte search of the row's text, once
 * per write, instead of one per read on the bindings that stop reading TEXT at a NUL.
 */
export function textNulTriggerSql(table: TableDef): string[] {
  const text = table.columns.filter((column) => column.type === "TEXT").map((column) => ident(column.name));
  const holdsNul = text.map((column) => `instr(CAST(new.${column} AS BLOB), x'00') > 0`).join(" OR ");
  const forget = `DELETE FROM ${ident(STATE_META.name)} WHERE ${ident("key")} = '${META_TEXT_WITHOUT_NUL}';`;
  const name = (event: string) => ident(`sessiondb_text_nul_${table.name}_${event}`);
  const on = ident(table.name);
  return [
    `CREATE TRIGGER IF NOT EXISTS ${name("ai")} AFTER INSERT ON ${on} WHEN ${holdsNul} BEGIN ${forget} END`,
    `CREATE TRIGGER IF NOT EXISTS ${name("au")} AFTER UPDATE OF ${text.join(", ")} ON ${on} WHEN ${holdsNul} BEGIN ${forget} END`,
  ];
}

/** Write META_TEXT_WITHOUT_NUL when every table the triggers watch is empty: run when a store is
 * created. What a store already holds when its triggers are created is not known, so a store
 * with rows never gets the key. */
export const MARK_TEXT_WITHOUT_NUL_SQL = `INSERT OR IGNORE INTO ${ident(STATE_META.name)} (${ident("key")}, ${ident("value")}) SELECT '${META_TEXT_WITHOUT_NUL}', '1' WHERE ${READ_TABLES.map((table) => `NOT EXISTS (SELECT 1 FROM ${ident(table.name)})`).join(" AND ")}`;

/** One row while the store has META_TEXT_WITHOUT_NUL, none once it lost it. */
export const TEXT_WITHOUT_NUL_SQL = `SELECT 1 AS yes FROM ${ident(STATE_META.name)} WHERE ${ident("key")} = '${META_TEXT_WITHOUT_NUL}'`;

/** Every text-NUL trigger statement. */
export function textNulTriggersDdl(): string[] {
  return READ_TABLES.flatMap(textNulTriggerSql);
}

/** Every table, index and trigger statement, in dependency order. */
export function schemaDdl(): string[] {
  return [
    ...TABLES.map((table) => createTableSql(table)),
    ...INDEXES.map(createIndexSql),
    ...textNulTriggersDdl(),
  ];
}

/** The read probe: one zero-row SELECT per table naming every column qualified by its table
 * (an unqualified double-quoted name that fails to resolve silently becomes a string literal). */
export function readProbeSql(table: TableDef): string {
  const columns = table.columns.map((column) => `${ident(table.name)}.${ident(column.name)}`).join(", ");
  return `SELECT ${columns} FROM ${ident(table.name)} LIMIT 0`;
}
