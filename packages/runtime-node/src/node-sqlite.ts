/**
 * Driver for Node's built-in `node:sqlite` (`DatabaseSync`): unflagged since Node 22.13 / 23.4,
 * without an ExperimentalWarning since Node 24.15. Loaded lazily, so a process that uses
 * better-sqlite3 never opens a file through node:sqlite's SQLite build (two builds touching one
 * file in one process break POSIX lock bookkeeping: sqlite.org "How To Corrupt", §2.3).
 *
 * The binding is described structurally (the subset we call), so this file type-checks against
 * any `@types/node` and never imports `node:sqlite` at module load.
 */
import { createRequire } from "node:module";
import process from "node:process";
import {
  DriverUnavailableError,
  defineDriver,
  type RawDriver,
  type Row,
  resultCodeFromMessage,
  resultCodeFromNumber,
  type SqliteDriver,
  type SqlValue,
} from "@sessiondb/core";
import { directoryOpenError } from "./open-errors.js";

/** The part of `StatementSync` this driver uses. */
interface NodeSqliteStatement {
  run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
  /** The statement's own text, without the unparsed tail (`sqlite3_sql`). */
  readonly sourceSQL: string;
}

/** The part of `DatabaseSync` this driver uses. */
interface NodeSqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): NodeSqliteStatement;
  close(): void;
}

/** Constructor options; the explicit values match the better-sqlite3 build's defaults. */
interface NodeSqliteOpenOptions {
  readOnly: boolean;
  enableForeignKeyConstraints: boolean;
  enableDoubleQuotedStringLiterals: boolean;
  allowExtension: boolean;
}

/** The `node:sqlite` module, structurally. */
export interface NodeSqliteModule {
  DatabaseSync: new (path: string, options: NodeSqliteOpenOptions) => NodeSqliteDatabase;
}

let cached: NodeSqliteModule | undefined;

/** Load `node:sqlite`, or throw `DriverUnavailableError` saying which Node version has it. */
export function loadNodeSqlite(): NodeSqliteModule {
  if (cached) return cached;
  let loaded: Partial<NodeSqliteModule> | undefined;
  let cause: unknown;
  try {
    // getBuiltinModule (Node ≥ 22.3) keeps bundlers from resolving or rewriting the specifier;
    // createRequire covers runtimes without it.
    const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
    loaded = (getBuiltin?.call(process, "node:sqlite") ??
      createRequire(import.meta.url)("node:sqlite")) as Partial<NodeSqliteModule>;
  } catch (error) {
    cause = error;
  }
  if (typeof loaded?.DatabaseSync !== "function") {
    throw new DriverUnavailableError(
      `node:sqlite is not available on Node ${process.versions.node}: it is built into Node ≥ 22.13 and ≥ 23.4 (22.5–22.12 and 23.0–23.3 need --experimental-sqlite). Upgrade Node, or run "npm install better-sqlite3" and use the better-sqlite3 driver.`,
      { cause },
    );
  }
  cached = loaded as NodeSqliteModule;
  return cached;
}

/** True when `text` is only whitespace, semicolons and SQL comments. */
function isBlankSql(text: string): boolean {
  return text.replace(/--[^\n]*(\n|$)|\/\*[\s\S]*?(\*\/|$)|[\s;]+/g, "") === "";
}

function errcodeOf(error: unknown): number | undefined {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === "number" ? errcode : undefined;
}

/** node:sqlite errors carry the extended result code in `errcode`; Deno's carry only a message. */
function classify(error: unknown): ReturnType<RawDriver["classify"]> {
  const errcode = errcodeOf(error);
  if (errcode !== undefined) {
    const code = resultCodeFromNumber(errcode);
    if (code) return { code, extendedCode: errcode };
  }
  if ((error as { code?: unknown } | null)?.code === "ERR_SQLITE_ERROR" && error instanceof Error) {
    return { code: resultCodeFromMessage(error.message) };
  }
  // Argument validation (ERR_INVALID_ARG_TYPE), use after close (ERR_INVALID_STATE) and
  // integers beyond 2^53 (ERR_OUT_OF_RANGE) are programming errors, not SQLite failures.
  return undefined;
}

/** The node:sqlite driver. Throws `DriverUnavailableError` when this Node has no node:sqlite. */
export function nodeSqliteDriver(): SqliteDriver {
  const { DatabaseSync } = loadNodeSqlite();
  return defineDriver({
    name: "node:sqlite",
    open(path, { readOnly }) {
      let db: NodeSqliteDatabase;
      try {
        // A read-only open never creates the file: a missing one fails with SQLITE_CANTOPEN.
        db = new DatabaseSync(path, {
          readOnly,
          enableForeignKeyConstraints: true,
          enableDoubleQuotedStringLiterals: false,
          allowExtension: false,
        });
      } catch (error) {
        if (classify(error)?.code !== "CANTOPEN") throw directoryOpenError(path, error) ?? error;
        throw error;
      }
      let closed = false;
      return {
        exec: (sql) => db.exec(sql),
        prepare(sql) {
          const statement = db.prepare(sql);
          // node:sqlite compiles the first statement and silently drops the rest; better-sqlite3
          // and bun:sqlite refuse. Refuse here too, so a dropped statement cannot go unnoticed.
          if (!isBlankSql(sql.slice(statement.sourceSQL.length))) {
            throw new RangeError("prepare() takes exactly one SQL statement; use exec() for scripts");
          }
          return {
            run(...params: SqlValue[]) {
              const result = statement.run(...params);
              return { changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
            },
            get: (...params: SqlValue[]) => statement.get(...params) as Row | undefined,
            all: (...params: SqlValue[]) => statement.all(...params) as Row[],
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
    classify,
  });
}
