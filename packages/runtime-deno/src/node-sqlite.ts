/**
 * Driver for Deno's built-in `node:sqlite` (`DatabaseSync`, Deno ≥ 2.2). The import stays
 * `node:sqlite` in the built output, so Deno serves its own SQLite build.
 *
 * Deno's errors differ from Node's: a failed statement carries `errcode` (the extended result
 * code), but a failed open carries only `code: "ERR_SQLITE_ERROR"` and a message with the path
 * appended ("unable to open database file: /x/state.db"). So: the number when there is one,
 * SQLite's message otherwise.
 */
import { statSync } from "node:fs";
// @ts-expect-error: @types/node before 22 (which Deno prefers when node_modules has it) lacks
// node:sqlite; the module is typed structurally below instead.
import * as sqlite from "node:sqlite";
import {
  defineDriver,
  type RawDriver,
  type Row,
  resultCodeFromMessage,
  resultCodeFromNumber,
  type SqliteDriver,
  SqliteError,
  type SqlValue,
} from "@sessiondb/core";

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

/** `node:sqlite`'s constructor, structurally. */
const { DatabaseSync } = sqlite as unknown as {
  DatabaseSync: new (
    path: string,
    options: {
      readOnly: boolean;
      enableForeignKeyConstraints: boolean;
      enableDoubleQuotedStringLiterals: boolean;
      allowExtension: boolean;
    },
  ) => NodeSqliteDatabase;
};

/** Classify a `node:sqlite` error as Deno throws it. */
export function classifyNodeSqliteError(error: unknown): ReturnType<RawDriver["classify"]> {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof errcode === "number") {
    const byNumber = resultCodeFromNumber(errcode);
    if (byNumber) return { code: byNumber, extendedCode: errcode };
  }
  if (code === "ERR_SQLITE_ERROR" && error instanceof Error) {
    // Drop the path Deno appends, so a path that reads like a message cannot mislead.
    return { code: resultCodeFromMessage(error.message.replace(/: \/.*$|: [A-Za-z]:\\.*$/s, "")) };
  }
  // ERR_INVALID_STATE (use after close), ERR_INVALID_ARG_TYPE, ERR_OUT_OF_RANGE (integers past
  // 2^53) and Deno's permission errors are not SQLite failures: they pass through unchanged.
  return undefined;
}

/** True when `text` is only whitespace, semicolons and SQL comments. */
function isBlankSql(text: string): boolean {
  return text.replace(/--[^\n]*(\n|$)|\/\*[\s\S]*?(\*\/|$)|[\s;]+/g, "") === "";
}

/** The node:sqlite driver for Deno. */
export function nodeSqliteDriver(): SqliteDriver {
  return defineDriver({
    name: "node:sqlite",
    open(path, { readOnly }) {
      // A read-only open of a directory "succeeds" and fails at the first read with
      // SQLITE_IOERR_READ (EISDIR), which would look like a failing disk: say CANTOPEN up front.
      if (readOnly && statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
        throw new SqliteError("CANTOPEN", `unable to open database file: ${path} is a directory`);
      }
      // A read-only open never creates the file. The explicit options match the other drivers.
      const db = new DatabaseSync(path, {
        readOnly,
        enableForeignKeyConstraints: true,
        enableDoubleQuotedStringLiterals: false,
        allowExtension: false,
      });
      let closed = false;
      return {
        exec: (sql) => db.exec(sql),
        prepare(sql) {
          const statement = db.prepare(sql);
          // node:sqlite compiles the first statement and silently drops the rest; refuse, like
          // better-sqlite3, so a dropped statement cannot go unnoticed.
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
    classify: classifyNodeSqliteError,
  });
}
