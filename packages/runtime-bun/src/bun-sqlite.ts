/**
 * Driver for Bun's built-in `bun:sqlite`. The import stays `bun:sqlite` in the built output
 * (tsup keeps it external; a test checks `dist/`), so Bun resolves its own SQLite build and the
 * package loads nothing else: one SQLite library per process (sqlite.org "How To Corrupt", §2.3).
 */

import { Database, type SQLQueryBindings } from "bun:sqlite";
import {
  defineDriver,
  type RawDriver,
  type Row,
  resultCodeFromMessage,
  resultCodeFromName,
  resultCodeFromNumber,
  type SqliteDriver,
  type SqlValue,
} from "@sessiondb/core/driver";
import { isDirectoryPath } from "@sessiondb/core/host";

/** bun:sqlite throws `SQLiteError` with `code` (extended name) and `errno` (extended number). */
function classify(error: unknown): ReturnType<RawDriver["classify"]> {
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown };
  if (typeof code === "string") {
    const byName = resultCodeFromName(code);
    if (byName) return { code: byName, extendedCode: typeof errno === "number" ? errno : code };
  }
  if (typeof errno === "number" && (error as Error | null)?.name === "SQLiteError") {
    const byNumber = resultCodeFromNumber(errno);
    if (byNumber) return { code: byNumber, extendedCode: errno };
  }
  // Only Bun's own SQLite errors classify by message: "Database has closed" and bad bind types
  // are programming errors and pass through unchanged.
  if ((error as Error | null)?.name === "SQLiteError") {
    return { code: resultCodeFromMessage((error as Error).message) };
  }
  return undefined;
}

/**
 * bun:sqlite compiles the first statement of `prepare("a; b")` and silently drops `b`;
 * better-sqlite3 refuses. Refuse too, so a dropped statement cannot go unnoticed. A small lexer
 * (quotes, comments, and `CREATE TRIGGER … END;` bodies) finds where the first statement ends.
 */
export function hasSecondStatement(sql: string): boolean {
  // Only a semicolon ends a statement, and almost none of the store's SQL has one: the lexer
  // (~2 µs a statement on Bun, three statements an open) runs only when there is one to judge.
  if (!sql.includes(";")) return false;
  const words: string[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    const next = sql[i + 1];
    if (c === "-" && next === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === "/" && next === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === "'" || c === '"' || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c;
      let j = i + 1;
      // A doubled quote inside a quoted token is an escaped quote.
      while (j < sql.length && !(sql[j] === close && sql[j + 1] !== close)) j += sql[j] === close ? 2 : 1;
      words.push("?");
      i = j + 1;
    } else if (c === ";") {
      const trigger = words[0] === "CREATE" && (words[1] === "TRIGGER" || words[2] === "TRIGGER");
      // Inside a trigger body only `END;` ends the statement.
      if (!trigger || words.at(-1) === "END") return /\S/.test(stripComments(sql.slice(i + 1)));
      words.push(";");
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_$]/.test(sql[j] as string)) j++;
      words.push(sql.slice(i, j).toUpperCase());
      i = j;
    } else {
      if (!/\s/.test(c)) words.push(c);
      i++;
    }
  }
  return false;
}

function stripComments(text: string): string {
  return text.replace(/--[^\n]*(\n|$)|\/\*[\s\S]*?(\*\/|$)|;/g, "");
}

/** The bun:sqlite driver. */
export function bunSqliteDriver(): SqliteDriver {
  return defineDriver({
    name: "bun:sqlite",
    isDirectory: isDirectoryPath,
    open(path, { readOnly }) {
      // readonly alone never creates the file: a missing one fails with SQLITE_CANTOPEN.
      // safeIntegers stays off: integers come back as numbers, like the other drivers.
      const db = new Database(path, readOnly ? { readonly: true } : { readwrite: true, create: true });
      const statements = new Set<{ finalize(): void }>();
      return {
        exec: (sql) => void db.exec(sql),
        prepare(sql) {
          const statement = db.prepare<Row, SQLQueryBindings[]>(sql);
          statements.add(statement);
          if (hasSecondStatement(sql)) {
            statement.finalize();
            throw new RangeError("prepare() takes exactly one SQL statement; use exec() for scripts");
          }
          return {
            run(...params: SqlValue[]) {
              const result = statement.run(...params);
              return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) };
            },
            // bun:sqlite answers "no row" with null; the seam says undefined.
            get: (...params: SqlValue[]) => statement.get(...params) ?? undefined,
            all: (...params: SqlValue[]) => statement.all(...params),
          };
        },
        close() {
          // bun:sqlite defers the real close (and keeps the file descriptors) until every
          // statement is finalized — otherwise until garbage collection. Finalize them now.
          for (const statement of statements) statement.finalize();
          statements.clear();
          db.close(false);
        },
      };
    },
    classify,
  });
}
