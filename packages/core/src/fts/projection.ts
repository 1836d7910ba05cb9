/**
 * The FTS projection as data, and the DDL generated from it (pure; no execution). One column
 * expression per index feeds the source view, every trigger and (through the view) rebuild and
 * backfill, so what the triggers index is exactly what FTS5 reads back from the view, and
 * `integrity-check` with rank 1 passes. A later async executor reuses these strings as they are.
 */
import { TOOL_CONTENT_PREFIX_CHARS } from "../constants.js";
import { META_BACKFILL_HIGH_WATER, META_BACKFILL_PROGRESS } from "./constants.js";

/** One FTS5 external-content index over a view of `messages`. */
export interface FtsIndexDef {
  /** FTS5 table name. */
  readonly table: string;
  /** The view FTS5 reads its content from (`content=`). */
  readonly view: string;
  /** FTS5 `tokenize=` argument. */
  readonly tokenize: string;
  /** Indexed columns; `expr(row)` renders the value from `row` ("" for the table itself, "new.", "old."). */
  readonly columns: ReadonlyArray<{ name: string; expr(row: string): string }>;
  /** `messages` columns whose change must re-index a row (role included: it selects the projection). */
  readonly dependsOn: readonly string[];
  /** Rows this index holds, as a condition on `row`; undefined = every row. */
  rowFilter?(row: string): string;
}

/**
 * Tool output is huge and mostly noise: tool rows index only a prefix, in characters. SQLite's
 * substr() on TEXT stops at a NUL, though, and so do replace() and every other text function
 * that could take one out: a tool row with a NUL early on indexed only the text before it. Such
 * a row (a NUL within the bytes the prefix can span, 4 per character) is cut in bytes instead —
 * the same prefix for ASCII, a shorter one for other text — where substr() on a BLOB reads
 * through the NUL; FTS5 tokenizes the NUL as a separator.
 */
function indexedContent(row: string): string {
  const bytes = `CAST(${row}content AS BLOB)`;
  const holdsNul = `instr(substr(${bytes}, 1, ${4 * TOOL_CONTENT_PREFIX_CHARS}), x'00') > 0`;
  const prefix = `CASE WHEN ${holdsNul} THEN CAST(substr(${bytes}, 1, ${TOOL_CONTENT_PREFIX_CHARS}) AS TEXT) ELSE substr(${row}content, 1, ${TOOL_CONTENT_PREFIX_CHARS}) END`;
  return `CASE WHEN ${row}role = 'tool' THEN ${prefix} ELSE ${row}content END`;
}

const plain = (name: string) => ({ name, expr: (row: string) => `${row}${name}` });

/** Word search: every role, tool rows truncated to the prefix. */
export const BASE_INDEX: FtsIndexDef = {
  table: "messages_fts",
  view: "messages_fts_src",
  tokenize: "unicode61 remove_diacritics 2",
  columns: [{ name: "content", expr: indexedContent }, plain("tool_name"), plain("tool_calls")],
  dependsOn: ["content", "tool_name", "tool_calls", "role"],
};

/** Substring and CJK search over non-tool rows (trigram needs SQLite ≥ 3.34). */
export const TRIGRAM_INDEX: FtsIndexDef = {
  table: "messages_fts_trigram",
  view: "messages_fts_trigram_src",
  tokenize: "trigram",
  columns: [plain("content"), plain("tool_name")],
  dependsOn: ["content", "tool_name", "role"],
  rowFilter: (row) => `${row}role <> 'tool'`,
};

/** Both indexes, base first. */
export const FTS_INDEXES: readonly FtsIndexDef[] = [BASE_INDEX, TRIGRAM_INDEX];

const exprs = (def: FtsIndexDef, row: string) => def.columns.map((c) => c.expr(row)).join(", ");
const names = (def: FtsIndexDef) => def.columns.map((c) => c.name).join(", ");
const metaInt = (key: string) => `(SELECT CAST(value AS INTEGER) FROM state_meta WHERE key = '${key}')`;

/**
 * The backfill window gate: act only on ids the index is responsible for now — above the
 * high-water mark (live rows) or at/below progress (already backfilled). Without a backfill the
 * high-water key is absent and the gate is always true. Touching an id inside the pending window
 * would 'delete' tokens that were never inserted, which corrupts an external-content index.
 */
export function backfillGate(row: string): string {
  return `(${row}id > coalesce(${metaInt(META_BACKFILL_HIGH_WATER)}, -1) OR ${row}id <= coalesce(${metaInt(META_BACKFILL_PROGRESS)}, -1))`;
}

/** `CREATE VIEW` of what `def` indexes. */
export function viewDdl(def: FtsIndexDef): string {
  const where = def.rowFilter ? ` WHERE ${def.rowFilter("")}` : "";
  const cols = def.columns.map((c) => `${c.expr("")} AS ${c.name}`).join(", ");
  return `CREATE VIEW IF NOT EXISTS ${def.view} AS SELECT id, ${cols} FROM messages${where}`;
}

/** `CREATE VIRTUAL TABLE` for `def`. */
export function tableDdl(def: FtsIndexDef): string {
  return `CREATE VIRTUAL TABLE IF NOT EXISTS ${def.table} USING fts5(${names(def)}, content='${def.view}', content_rowid='id', tokenize='${def.tokenize}')`;
}

/** Trigger names of `def` (insert, delete, update). */
export function triggerNames(def: FtsIndexDef): string[] {
  return [`${def.table}_ai`, `${def.table}_ad`, `${def.table}_au`];
}

/** `INSERT INTO fts(rowid, …)` of `row`'s projection, or of the 'delete' command. */
function indexRow(def: FtsIndexDef, row: string, del: boolean, guarded: boolean): string {
  const target = del
    ? `${def.table}(${def.table}, rowid, ${names(def)})`
    : `${def.table}(rowid, ${names(def)})`;
  const values = `${del ? "'delete', " : ""}${row}id, ${exprs(def, row)}`;
  // In the update trigger the role may move a row into or out of this index, so each half is
  // guarded by the row filter; insert/delete triggers carry the filter in their WHEN instead.
  if (guarded && def.rowFilter) return `INSERT INTO ${target} SELECT ${values} WHERE ${def.rowFilter(row)};`;
  return `INSERT INTO ${target} VALUES (${values});`;
}

/** The three triggers that keep `def` in step with `messages`. */
export function triggerDdl(def: FtsIndexDef): string[] {
  const [ai, ad, au] = triggerNames(def);
  const when = (row: string) =>
    [backfillGate(row), ...(def.rowFilter ? [def.rowFilter(row)] : [])].join(" AND ");
  const changed = def.dependsOn.map((c) => `old.${c} IS NOT new.${c}`).join(" OR ");
  return [
    `CREATE TRIGGER IF NOT EXISTS ${ai} AFTER INSERT ON messages WHEN ${when("new.")} BEGIN ${indexRow(def, "new.", false, false)} END`,
    `CREATE TRIGGER IF NOT EXISTS ${ad} AFTER DELETE ON messages WHEN ${when("old.")} BEGIN ${indexRow(def, "old.", true, false)} END`,
    `CREATE TRIGGER IF NOT EXISTS ${au} AFTER UPDATE OF ${def.dependsOn.join(", ")} ON messages WHEN (${changed}) AND ${backfillGate("new.")} BEGIN ${indexRow(def, "old.", true, true)} ${indexRow(def, "new.", false, true)} END`,
  ];
}

/** The views and triggers of `def` as sqlite_master keeps this build's DDL (SQLite stores the
 * statement without its IF NOT EXISTS): a stored text that differs was written by another build. */
export function storedDdl(def: FtsIndexDef): ReadonlyArray<readonly [name: string, sql: string]> {
  const names = [def.view, ...triggerNames(def)];
  const ddl = [viewDdl(def), ...triggerDdl(def)];
  return names.map((name, i) => [
    name,
    (ddl[i] as string).replace(/^CREATE (VIEW|TRIGGER) IF NOT EXISTS /, "CREATE $1 "),
  ]);
}

/**
 * The views and triggers earlier builds stored, by name: an upgrade replaces an index that one of
 * them built (fts/install.ts) and leaves alone one it does not know — a newer build's — which it
 * reads as stale instead, so two builds never take turns rebuilding each other's index.
 * Layout 1: tool rows cut by substr() on the TEXT, which stops at a NUL.
 */
export function earlierProjections(): ReadonlyMap<string, ReadonlySet<string>> {
  if (earlier !== undefined) return earlier;
  const layout1: FtsIndexDef = {
    ...BASE_INDEX,
    columns: BASE_INDEX.columns.map((column) =>
      column.name === "content"
        ? {
            name: "content",
            expr: (row: string) =>
              `CASE WHEN ${row}role = 'tool' THEN substr(${row}content, 1, ${TOOL_CONTENT_PREFIX_CHARS}) ELSE ${row}content END`,
          }
        : column,
    ),
  };
  const found = new Map<string, Set<string>>();
  for (const [name, sql] of storedDdl(layout1)) found.set(name, new Set([sql]));
  earlier = found;
  return found;
}

/** earlierProjections(), built on its first call (only an upgrade or a status asks), not at load. */
let earlier: ReadonlyMap<string, ReadonlySet<string>> | undefined;

/** `DROP TRIGGER` for every trigger of `def`. */
export function dropTriggerDdl(def: FtsIndexDef): string[] {
  return triggerNames(def).map((name) => `DROP TRIGGER IF EXISTS ${name}`);
}

/** Index `def`'s rows with ids in `(?, ?]` straight from its view (backfill steps). */
export function indexWindowSql(def: FtsIndexDef): string {
  return `INSERT INTO ${def.table}(rowid, ${names(def)}) SELECT id, ${names(def)} FROM ${def.view} WHERE id > ? AND id <= ?`;
}

/** Index `def`'s rows with ids in `(?, ?]` that have no docsize row (the boundary sweep). */
export function sweepWindowSql(def: FtsIndexDef): string {
  return `INSERT INTO ${def.table}(rowid, ${names(def)}) SELECT s.id, ${def.columns.map((c) => `s.${c.name}`).join(", ")} FROM ${def.view} s WHERE s.id > ? AND s.id <= ? AND NOT EXISTS (SELECT 1 FROM ${def.table}_docsize d WHERE d.id = s.id)`;
}

/** An FTS5 special command such as 'rebuild', 'delete-all' or 'optimize'. */
export function commandSql(def: FtsIndexDef, command: string): string {
  return `INSERT INTO ${def.table}(${def.table}) VALUES ('${command}')`;
}

/** An FTS5 command that takes a rank argument ('merge', 'integrity-check'); the argument is `?`. */
export function rankCommandSql(def: FtsIndexDef, command: string): string {
  return `INSERT INTO ${def.table}(${def.table}, rank) VALUES ('${command}', ?)`;
}

/** Drop every FTS object (triggers, tables, views), for a migration to a new FTS layout; the
 * next install and repair recreate and rebuild them. */
export function ftsDropDdl(): string[] {
  return FTS_INDEXES.flatMap((def) => [
    ...dropTriggerDdl(def),
    `DROP TABLE IF EXISTS ${def.table}`,
    `DROP VIEW IF EXISTS ${def.view}`,
  ]);
}

/** The FTS DDL that goes into the schema fingerprint: views, tables and triggers of both indexes. */
export function ftsFingerprintText(): string {
  return FTS_INDEXES.flatMap((def) => [viewDdl(def), tableDdl(def), ...triggerDdl(def)]).join(";\n");
}
