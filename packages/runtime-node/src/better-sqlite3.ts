/**
 * Driver for `better-sqlite3` (Node ≥ 20). Loaded lazily with `require` (require.ts), so a process
 * that uses `node:sqlite` never loads a second SQLite build (two builds touching one file in one
 * process break POSIX lock bookkeeping: sqlite.org "How To Corrupt", §2.3).
 */

import { DriverUnavailableError, SqliteError } from "@sessiondb/core";
import {
  defineDriver,
  type RawDriver,
  type Row,
  type RunResult,
  resultCodeFromMessage,
  resultCodeFromName,
  type SqliteConnection,
  type SqliteDriver,
  type SqliteStatement,
  type SqlValue,
} from "@sessiondb/core/driver";
import type BetterSqlite3 from "better-sqlite3";
import { isDirectoryPath } from "./host.js";
import { packageRequire } from "./require.js";

type DatabaseClass = typeof BetterSqlite3;

let cached: DatabaseClass | undefined;

/** Load the binding and its native addon, or throw `DriverUnavailableError` saying what to do. */
function loadBetterSqlite3(): DatabaseClass {
  if (cached) return cached;
  let Database: DatabaseClass;
  // Outside the try: on a Node too old to give a require, that is the answer, not a missing package.
  const require = packageRequire();
  try {
    Database = require("better-sqlite3") as DatabaseClass;
  } catch (error) {
    throw new DriverUnavailableError(
      `better-sqlite3 is not installed: run "npm install better-sqlite3" (any Node ≥ 20.16), or on Node ≥ 22.13 use the built-in node:sqlite driver.`,
      { cause: error },
    );
  }
  try {
    // require() succeeds even when the native addon was built for another Node ABI; the addon
    // is only loaded by the first constructor call, so probe with an in-memory database.
    new Database(":memory:").close();
  } catch (error) {
    // Node's ABI message spans several lines and ends in generic advice; keep the facts.
    const reason = (error instanceof Error ? error.message : String(error))
      .replace(/\s+/g, " ")
      .replace(/ Please try .*$/, "");
    throw new DriverUnavailableError(
      `better-sqlite3 is installed but its native addon does not load in Node ${process.versions.node} (${reason}). Run "npm rebuild better-sqlite3" with this Node, or on Node ≥ 22.13 use the built-in node:sqlite driver.`,
      { cause: error },
    );
  }
  cached = Database;
  return cached;
}

/** better-sqlite3 errors are `SqliteError`s whose `code` is the extended code's name. */
function classify(error: unknown): ReturnType<RawDriver["classify"]> {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    const byName = resultCodeFromName(code);
    if (byName) return { code: byName, extendedCode: code };
  }
  // better-sqlite3 checks some things itself and throws plain errors, e.g. a TypeError
  // "Cannot open database because the directory does not exist". Those classify by message;
  // anything that matches no SQLite message (bad bind types, too few parameters) is a
  // programming error and passes through unchanged.
  if (error instanceof Error) {
    const byMessage = resultCodeFromMessage(error.message);
    if (byMessage !== "ERROR") return { code: byMessage };
  }
  return undefined;
}

/** A connection that keeps its binding handle for `backup`. */
type BetterConnection = SqliteConnection & { readonly database: BetterSqlite3.Database };

/** A better-sqlite3 connection. Classes rather than object literals: every store open prepares
 * several statements, and methods on a prototype cost it no closures. */
class BetterSqliteConnection implements BetterConnection {
  readonly database: BetterSqlite3.Database;

  constructor(database: BetterSqlite3.Database) {
    this.database = database;
  }

  exec(sql: string): void {
    this.database.exec(sql);
  }

  prepare(sql: string): BetterStatement {
    return new BetterStatement(this.database.prepare(sql));
  }

  close(): void {
    this.database.close();
  }
}

/** better-sqlite3 refuses get()/all() on statements that return no rows; node:sqlite and
 * bun:sqlite run them and return nothing. This does the same, so core behaves alike everywhere. */
class BetterStatement implements SqliteStatement {
  readonly #statement: BetterSqlite3.Statement;
  readonly #reader: boolean;

  constructor(statement: BetterSqlite3.Statement) {
    this.#statement = statement;
    this.#reader = statement.reader;
  }

  run(...params: SqlValue[]): RunResult {
    const result = this.#statement.run(...params);
    return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) };
  }

  get(...params: SqlValue[]): Row | undefined {
    if (this.#reader) return this.#statement.get(...params) as Row | undefined;
    this.#statement.run(...params);
    return undefined;
  }

  all(...params: SqlValue[]): Row[] {
    if (this.#reader) return this.#statement.all(...params) as Row[];
    this.#statement.run(...params);
    return [];
  }
}

/** The better-sqlite3 driver. Throws `DriverUnavailableError` when the binding does not load. */
export function betterSqlite3Driver(): SqliteDriver {
  const Database = loadBetterSqlite3();
  return defineDriver({
    name: "better-sqlite3",
    isDirectory: isDirectoryPath,
    async backup(connection: BetterConnection, destination, { pagesPerStep, onStep }) {
      // The handler's return value is the next step's page count; throwing from it aborts.
      const { totalPages } = await connection.database.backup(destination, {
        progress: (progress) => {
          onStep?.(progress);
          return pagesPerStep;
        },
      });
      // better-sqlite3 ends a backup whose step met a locked source as if it had finished, with
      // nothing copied. A database with pages that "copied" none was locked: say BUSY, as the
      // seam requires, instead of leaving an empty file that looks like a finished copy.
      if (totalPages === 0 && Number(connection.database.pragma("page_count", { simple: true })) > 0) {
        throw new SqliteError("BUSY", "database is locked: the online backup could not read the source");
      }
    },
    open(path, { readOnly }): BetterConnection {
      // timeout 0: better-sqlite3 would otherwise wait 5 s on every lock by itself, while
      // node:sqlite and bun:sqlite wait 0. Core sets busy_timeout explicitly; drivers add none.
      const db = new Database(path, { readonly: readOnly, fileMustExist: readOnly, timeout: 0 });
      return new BetterSqliteConnection(db);
    },
    classify,
  });
}
