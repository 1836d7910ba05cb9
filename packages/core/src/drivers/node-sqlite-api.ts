/**
 * The one driver for the `node:sqlite` API (`DatabaseSync`), which Node (≥ 22.13) and Deno
 * (≥ 2.2) both provide. Core imports no runtime module: the adapter passes the `DatabaseSync`
 * class it loaded (Node lazily, Deno by import) and, for the directory check, its file system.
 *
 * The binding is described structurally (only the members we call), so this file type-checks
 * against any `@types/node` and any Deno.
 */
import {
  defineDriver,
  type RawDriver,
  type Row,
  type SqliteConnection,
  type SqliteDriver,
  type SqlValue,
} from "../driver.js";
import { SqliteError } from "../errors.js";
import { resultCodeFromMessage, resultCodeFromNumber } from "../sqlite-codes.js";

/** The part of `StatementSync` this driver uses. */
export interface NodeSqliteApiStatement {
  /** Execute; counts are bigint when they pass 2^53 or `readBigInts` is on. */
  run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  /** First row, or undefined. */
  get(...params: SqlValue[]): unknown;
  /** All rows. */
  all(...params: SqlValue[]): unknown[];
  /** The statement's own text, without the unparsed tail (`sqlite3_sql`). */
  readonly sourceSQL: string;
  /** Read INTEGER columns as bigint (all of them) from the next call on. */
  setReadBigInts(enabled: boolean): void;
  /** Return rows as arrays of values (Node ≥ 22.16 / 24, Deno 2.9). */
  setReturnArrays?(enabled: boolean): void;
  /** The result columns, in order (Node ≥ 22.16 / 23.11, Deno 2.9). */
  columns?(): ReadonlyArray<{ name: string }>;
}

/** The part of `DatabaseSync` this driver uses. */
export interface NodeSqliteApiDatabase {
  /** Run a script without results. */
  exec(sql: string): void;
  /** Compile the first statement of `sql`. */
  prepare(sql: string): NodeSqliteApiStatement;
  /** Close; throws ERR_INVALID_STATE the second time. */
  close(): void;
}

/** Constructor options; the explicit values match the other drivers' defaults. */
export interface NodeSqliteApiOpenOptions {
  readOnly: boolean;
  enableForeignKeyConstraints: boolean;
  enableDoubleQuotedStringLiterals: boolean;
  allowExtension: boolean;
}

/** `DatabaseSync`, structurally. */
export type NodeSqliteApiDatabaseClass = new (
  path: string,
  options: NodeSqliteApiOpenOptions,
) => NodeSqliteApiDatabase;

/** The module-level `backup(sourceDb, path, options)` of `node:sqlite` (Node ≥ 22.16, Deno). */
export type NodeSqliteApiBackup = (
  source: NodeSqliteApiDatabase,
  path: string,
  options: { rate: number; progress?: (progress: { totalPages: number; remainingPages: number }) => void },
) => Promise<unknown>;

/** What the adapter supplies besides the class. */
export interface NodeSqliteApiDriverOptions {
  /** The module's `backup` function, when this runtime has it (else core uses `VACUUM INTO`). */
  backup?: NodeSqliteApiBackup;
  /** Driver name; default "node:sqlite". */
  name?: string;
  /** Whether `path` is a directory (the runtime's `statSync`); without it the check is skipped. */
  isDirectory?: (path: string) => boolean;
}

/** True when `text` is only whitespace, semicolons and SQL comments. */
export function isBlankSql(text: string): boolean {
  return text.replace(/--[^\n]*(\n|$)|\/\*[\s\S]*?(\*\/|$)|[\s;]+/g, "") === "";
}

/**
 * Classify a `node:sqlite` error: the extended result code in `errcode` when there is one (Node
 * always; Deno for statements), else SQLite's message (Deno's exec and open errors carry only
 * `code: "ERR_SQLITE_ERROR"` and a message with the path appended).
 */
export function classifyNodeSqliteError(error: unknown): ReturnType<RawDriver["classify"]> {
  const { code, errcode, name } = (error ?? {}) as { code?: unknown; errcode?: unknown; name?: unknown };
  // Deno's permission errors from node:sqlite carry ERR_SQLITE_ERROR too, but SQLite never ran.
  if (name === "NotCapable") return undefined;
  if (typeof errcode === "number") {
    const byNumber = resultCodeFromNumber(errcode);
    if (byNumber) return { code: byNumber, extendedCode: errcode };
  }
  if (code === "ERR_SQLITE_ERROR" && error instanceof Error) {
    // Drop the path Deno appends, so a path that reads like a message cannot mislead.
    return { code: resultCodeFromMessage(error.message.replace(/: \/.*$|: [A-Za-z]:\\.*$/s, "")) };
  }
  // ERR_INVALID_STATE (use after close), ERR_INVALID_ARG_TYPE, ERR_OUT_OF_RANGE (an integer past
  // 2^53 read by a statement that may write) and Deno's permission errors are not SQLite
  // failures: they pass through unchanged.
  return undefined;
}

/** A connection that keeps its `DatabaseSync` for `backup`. */
type ApiConnection = SqliteConnection & { readonly database: NodeSqliteApiDatabase };

/** A read that cannot change the database, so repeating it is harmless. */
const READ_ONLY = /^\s*(SELECT|VALUES)\b/i;

/**
 * Run `read`; when a row holds an integer past 2^53, read it again with bigints, which `toRows`
 * turns into the nearest doubles. better-sqlite3 and bun:sqlite return that double themselves;
 * node:sqlite throws ERR_OUT_OF_RANGE for the whole call instead. Reading every integer as a
 * bigint made ordinary reads half again as slow, so only such reads pay. A statement that may
 * write is not repeated: its error passes through.
 */
function readWide<T>(statement: NodeSqliteApiStatement, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (
      (error as { code?: unknown } | null)?.code !== "ERR_OUT_OF_RANGE" ||
      !READ_ONLY.test(statement.sourceSQL)
    ) {
      throw error;
    }
  }
  statement.setReadBigInts(true);
  try {
    return read();
  } finally {
    statement.setReadBigInts(false);
  }
}

/**
 * How a statement's rows become `Row` objects. node:sqlite builds each row object in its C++
 * layer as a dictionary (no hidden class), so every property read of it is a hash lookup: turning
 * 50 messages into `Message` objects took 49 µs on Node 24 against 17 µs from ordinary objects.
 * Where the binding can return rows as arrays, the driver builds the objects itself — all of one
 * statement's rows share one shape — and the read plus the conversion costs less than the
 * binding's objects alone (Node 24: 212 → 171 µs for those 50 messages read and converted; Deno:
 * 157 → 102 µs). The column names are read once per statement: the store's statements name their
 * columns (none selects `*`), so a schema change cannot rename them; a row of another width (a
 * `*` over a table that gained a column) reads them again.
 */
interface RowShape {
  names: readonly string[] | undefined;
}

function rowShape(statement: NodeSqliteApiStatement): RowShape {
  if (typeof statement.setReturnArrays !== "function" || typeof statement.columns !== "function")
    return { names: undefined };
  const names = statement.columns().map((column) => column.name);
  // A column named __proto__ would set a plain object's prototype: keep the binding's objects.
  if (names.includes("__proto__")) return { names: undefined };
  statement.setReturnArrays(true);
  return { names };
}

/** The binding's rows as `Row` objects, integers past 2^53 (read as bigints) as doubles. */
function toRows(statement: NodeSqliteApiStatement, shape: RowShape, rows: unknown[]): Row[] {
  const names = shape.names;
  if (names === undefined) {
    for (const row of rows as Row[])
      for (const key in row) if (typeof row[key] === "bigint") row[key] = Number(row[key]);
    return rows as Row[];
  }
  const out = new Array<Row>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const values = rows[i] as unknown[];
    if (values.length !== shape.names?.length)
      shape.names = statement.columns?.().map((column) => column.name) ?? names;
    const current = shape.names;
    const row: Row = {};
    for (let j = 0; j < current.length; j++) {
      const value = values[j];
      row[current[j] as string] = typeof value === "bigint" ? Number(value) : (value as Row[string]);
    }
    out[i] = row;
  }
  return out;
}

/** A driver over the runtime's `DatabaseSync` class. */
export function nodeSqliteApiDriver(
  DatabaseSync: NodeSqliteApiDatabaseClass,
  options: NodeSqliteApiDriverOptions = {},
): SqliteDriver {
  const { name = "node:sqlite", isDirectory, backup } = options;
  return defineDriver({
    name,
    isDirectory,
    backup: backup
      ? async (connection: ApiConnection, destination, { pagesPerStep, onStep }) => {
          try {
            await backup(connection.database, destination, { rate: pagesPerStep, progress: onStep });
          } catch (error) {
            // node:sqlite rejects a backup whose step met a locked source with the destination's
            // result code, which is 0 ("not an error"): it was BUSY.
            if ((error as { errcode?: unknown } | null)?.errcode === 0) {
              throw new SqliteError(
                "BUSY",
                "database is locked: the online backup could not read the source",
                {
                  cause: error,
                },
              );
            }
            throw error;
          }
        }
      : undefined,
    open(path, { readOnly }): ApiConnection {
      // A read-only open never creates the file: a missing one fails with SQLITE_CANTOPEN.
      // The empty path (SQLite's private temporary database) opens as ":memory:", the same kind
      // of store for its user: Deno refuses "" ("Empty path is not allowed") unless every
      // permission is granted.
      const db = new DatabaseSync(path === "" ? ":memory:" : path, {
        readOnly,
        enableForeignKeyConstraints: true,
        enableDoubleQuotedStringLiterals: false,
        allowExtension: false,
      });
      // Deno's node:sqlite gives a read-only connection a 5 s busy timeout of its own (its
      // `timeout` option does not change it); the seam adds no wait: callers set their own.
      if (readOnly) db.exec("PRAGMA busy_timeout = 0");
      let closed = false;
      return {
        database: db,
        exec: (sql) => db.exec(sql),
        prepare(sql) {
          const statement = db.prepare(sql);
          // node:sqlite compiles the first statement and silently drops the rest; better-sqlite3
          // and bun:sqlite refuse. Refuse here too, so a dropped statement cannot go unnoticed.
          if (!isBlankSql(sql.slice(statement.sourceSQL.length))) {
            throw new RangeError("prepare() takes exactly one SQL statement; use exec() for scripts");
          }
          // Decided at the first read: a statement that only runs never asks for its columns.
          let shape: RowShape | undefined;
          return {
            run(...params: SqlValue[]) {
              const result = statement.run(...params);
              return { changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
            },
            get(...params: SqlValue[]) {
              shape ??= rowShape(statement);
              const row = readWide(statement, () => statement.get(...params));
              return row === undefined ? undefined : toRows(statement, shape, [row])[0];
            },
            all(...params: SqlValue[]) {
              shape ??= rowShape(statement);
              return toRows(
                statement,
                shape,
                readWide(statement, () => statement.all(...params)),
              );
            },
          };
        },
        close() {
          // DatabaseSync.close() throws ERR_INVALID_STATE the second time; the seam says harmless.
          if (closed) return;
          closed = true;
          db.close();
        },
      };
    },
    classify: classifyNodeSqliteError,
  });
}
