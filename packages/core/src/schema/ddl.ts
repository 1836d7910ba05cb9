/** Pure SQL generation from the schema definition: nothing here touches a connection. */
import { type ColumnDef, INDEXES, type IndexDef, STATE_META, TABLES, type TableDef } from "./definition.js";

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

/** CREATE INDEX IF NOT EXISTS. */
export function createIndexSql(index: IndexDef): string {
  return `CREATE INDEX IF NOT EXISTS ${ident(index.name)} ON ${ident(index.table)}(${index.columns.map(ident).join(", ")})`;
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

/** Every table and index statement, in dependency order. */
export function schemaDdl(): string[] {
  return [...TABLES.map((table) => createTableSql(table)), ...INDEXES.map(createIndexSql)];
}

/** The read probe: one zero-row SELECT per table naming every column qualified by its table
 * (an unqualified double-quoted name that fails to resolve silently becomes a string literal). */
export function readProbeSql(table: TableDef): string {
  const columns = table.columns.map((column) => `${ident(table.name)}.${ident(column.name)}`).join(", ");
  return `SELECT ${columns} FROM ${ident(table.name)} LIMIT 0`;
}
