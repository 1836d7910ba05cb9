/**
 * Driver for `@db/sqlite` (JSR, 0.13): SQLite through Deno's FFI. The caller passes its
 * `Database` class, so this package never imports JSR; the binding is described structurally
 * below (only the members we call).
 *
 * @example
 * import { Database } from "jsr:@db/sqlite@0.13";
 * import { dbSqliteDriver, openStore } from "@sessiondb/deno";
 * const store = openStore("state.db", { driver: dbSqliteDriver(Database) });
 *
 * Binding facts this file works around (read in @db/sqlite 0.13's source):
 * - integers are read as 32-bit unless `int64: true`; with it, numbers (bigint past 2^53);
 * - TEXT carrying SQLite's JSON subtype is parsed unless `parseJson: false`;
 * - `Database#lastInsertRowId` goes through an FFI signature returning i32, so it wraps past
 *   2^31: the rowid is read with `SELECT last_insert_rowid()` instead;
 * - `run()` returns only the change count;
 * - every integral number and every bigint is bound as a 64-bit integer through FFI, which
 *   wraps what does not fit (1e20 would be stored as 7766279631452241920): such values are
 *   refused instead (other bindings store an integral number past 2^63 as REAL);
 * - errors from a failed statement are plain `Error`s carrying only SQLite's message; a failed
 *   open is a `SqliteError` whose numeric `code` is the primary result code.
 */

import {
  defineDriver,
  isBlankSql,
  type RawDriver,
  type Row,
  resultCodeFromMessage,
  resultCodeFromNumber,
  type SqliteDriver,
  type SqlValue,
} from "@sessiondb/core/driver";
import { isDirectoryPath } from "./host.js";

/** The part of @db/sqlite's `Statement` this driver uses. */
export interface DbSqliteStatement {
  /** Execute; returns the number of changed rows. */
  run(...params: SqlValue[]): number;
  /** First row as an object, or undefined. */
  get(...params: SqlValue[]): Record<string, unknown> | undefined;
  /** All rows as objects. */
  all(...params: SqlValue[]): Record<string, unknown>[];
  /** The compiled statement's own text (`sqlite3_sql`), without the unparsed tail. */
  readonly sql: string;
  /** Free the statement now rather than at garbage collection. */
  finalize(): void;
}

/** The part of @db/sqlite's `Database` this driver uses. */
export interface DbSqliteDatabase {
  /** Run a script (several statements) without results. */
  exec(sql: string): number;
  /** Compile one statement. */
  prepare(sql: string): DbSqliteStatement;
  /** Close; a second call is a no-op. */
  close(): void;
}

/** @db/sqlite's constructor options that this driver sets. */
export interface DbSqliteOpenOptions {
  readonly?: boolean;
  create?: boolean;
  int64?: boolean;
  parseJson?: boolean;
}

/** @db/sqlite's `Database` class, structurally. */
export type DbSqliteDatabaseClass = new (path: string, options?: DbSqliteOpenOptions) => DbSqliteDatabase;

/** Plain `Error`s the binding throws itself, before SQLite is involved. */
const BINDING_MESSAGES =
  /^(Value of unsupported type|Statement already bound|No such parameter|Extension loading|Failed to (load|initialize) SQLite3)/;

/** 2^63, exact as a number too: integers in [-2^63, 2^63) fit SQLite's 64 bits. */
const TWO_63 = 2 ** 63;
const TWO_63_BIG = 2n ** 63n;

/** Whether @db/sqlite would bind `value` wrapped (see above). */
function wrapsWhenBound(value: SqlValue): boolean {
  if (typeof value === "bigint") return value < -TWO_63_BIG || value >= TWO_63_BIG;
  return typeof value === "number" && Number.isInteger(value) && (value < -TWO_63 || value >= TWO_63);
}

/** `params`, unless one would be bound wrapped: then a RangeError, before SQLite runs. */
function bindable(params: SqlValue[]): SqlValue[] {
  const wrapped = params.find(wrapsWhenBound);
  if (wrapped !== undefined) {
    throw new RangeError(
      `Cannot bind ${String(wrapped)}: @db/sqlite binds integral numbers as 64-bit integers and would store this one wrapped. Nothing was run; pass a value from -2^63 to 2^63 - 1.`,
    );
  }
  return params;
}

/** Classify an @db/sqlite error: the numeric code when there is one, else SQLite's message. */
function classifyDbSqliteError(error: unknown): ReturnType<RawDriver["classify"]> {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (error.name === "SqliteError" && typeof code === "number") {
    const byNumber = resultCodeFromNumber(code);
    if (byNumber) return { code: byNumber, extendedCode: code };
  }
  // A failed statement throws a plain Error carrying sqlite3_errmsg. Subclasses (Deno's
  // permission errors, TypeErrors) and the binding's own messages are not SQLite failures.
  if (error.constructor !== Error || BINDING_MESSAGES.test(error.message)) return undefined;
  return { code: resultCodeFromMessage(error.message) };
}

/** With `int64` the binding returns integers past 2^53 as bigints; the other drivers return the
 * nearest double, and so does this one. */
function narrow(row: Row): Row {
  for (const key in row) if (typeof row[key] === "bigint") row[key] = Number(row[key]);
  return row;
}

/** A driver over the caller's @db/sqlite `Database` class. */
export function dbSqliteDriver(Database: DbSqliteDatabaseClass): SqliteDriver {
  return defineDriver({
    name: "@db/sqlite",
    isDirectory: isDirectoryPath,
    open(path, { readOnly }) {
      // readonly never creates (the binding adds SQLITE_OPEN_CREATE only to read-write opens).
      const db = new Database(path, { readonly: readOnly, create: !readOnly, int64: true, parseJson: false });
      let lastRowid: DbSqliteStatement | undefined;
      let closed = false;
      // The binding frees its handles on close and would then hand freed pointers to SQLite.
      const live = (): void => {
        if (closed) throw new TypeError("The database connection is closed; open the store again.");
      };
      return {
        exec(sql) {
          live();
          db.exec(sql);
        },
        prepare(sql) {
          live();
          const statement = db.prepare(sql);
          if (!isBlankSql(sql.slice(statement.sql.length))) {
            statement.finalize();
            throw new RangeError("prepare() takes exactly one SQL statement; use exec() for scripts");
          }
          return {
            run(...params: SqlValue[]) {
              live();
              const changes = statement.run(...bindable(params));
              lastRowid ??= db.prepare("SELECT last_insert_rowid() AS id");
              return { changes, lastInsertRowid: Number(lastRowid.get()?.id) };
            },
            get(...params: SqlValue[]) {
              live();
              const row = statement.get(...bindable(params)) as Row | undefined;
              return row && narrow(row);
            },
            all(...params: SqlValue[]) {
              live();
              return (statement.all(...bindable(params)) as Row[]).map(narrow);
            },
          };
        },
        close() {
          closed = true;
          db.close();
        },
      };
    },
    classify: classifyDbSqliteError,
  });
}
