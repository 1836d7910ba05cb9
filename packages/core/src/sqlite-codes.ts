/**
 * Shared helpers the adapters use to classify binding errors into SQLite result codes:
 * by number (node:sqlite's `errcode`), by name (better-sqlite3's and bun:sqlite's `code`), and —
 * only when a binding gives neither (Deno's node:sqlite) — by SQLite's own message text.
 */
import type { SqliteResultCode } from "./errors.js";

const PRIMARY_BY_NUMBER: Record<number, SqliteResultCode> = {
  1: "ERROR",
  2: "INTERNAL",
  3: "PERM",
  4: "ABORT",
  5: "BUSY",
  6: "LOCKED",
  7: "NOMEM",
  8: "READONLY",
  9: "INTERRUPT",
  10: "IOERR",
  11: "CORRUPT",
  12: "NOTFOUND",
  13: "FULL",
  14: "CANTOPEN",
  15: "PROTOCOL",
  17: "SCHEMA",
  18: "TOOBIG",
  19: "CONSTRAINT",
  20: "MISMATCH",
  21: "MISUSE",
  22: "NOLFS",
  23: "AUTH",
  25: "RANGE",
  26: "NOTADB",
};

/** SQLITE_CORRUPT_VTAB = SQLITE_CORRUPT | (1 << 8): the one extended code core tells apart. */
const CORRUPT_VTAB = 267;

/** Classify an extended (or primary) result code number. */
export function resultCodeFromNumber(extended: number): SqliteResultCode | undefined {
  if (extended === CORRUPT_VTAB) return "CORRUPT_VTAB";
  return PRIMARY_BY_NUMBER[extended & 0xff];
}

const PRIMARY_NAMES = new Set<string>([...Object.values(PRIMARY_BY_NUMBER), "CORRUPT_VTAB"]);

/** Classify a code name such as "SQLITE_BUSY_SNAPSHOT" or "SQLITE_CORRUPT_VTAB". */
export function resultCodeFromName(name: string): SqliteResultCode | undefined {
  if (!name.startsWith("SQLITE_")) return undefined;
  const rest = name.slice("SQLITE_".length);
  if (rest === "CORRUPT_VTAB") return "CORRUPT_VTAB";
  const primary = rest.split("_")[0] ?? "";
  return PRIMARY_NAMES.has(primary) ? (primary as SqliteResultCode) : undefined;
}

/** SQLite's own messages (sqlite3_errstr and common sqlite3_errmsg texts), most specific first. */
const BY_MESSAGE: Array<[RegExp, SqliteResultCode]> = [
  [/database table is locked|database schema is locked/i, "LOCKED"],
  [/database is locked/i, "BUSY"],
  [/attempt to write a readonly database|readonly database/i, "READONLY"],
  [/unable to open database file|cannot open database|directory does not exist/i, "CANTOPEN"],
  [/file is not a database|file is encrypted/i, "NOTADB"],
  [/fts5: corrupt|malformed inverted index|vtable constructor failed/i, "CORRUPT_VTAB"],
  [/database disk image is malformed|malformed database schema/i, "CORRUPT"],
  [/constraint failed/i, "CONSTRAINT"],
  [/disk I\/O error/i, "IOERR"],
  [/database or disk is full/i, "FULL"],
  [/access permission denied/i, "PERM"],
  [/uses OS features not supported on host/i, "NOLFS"],
  [/out of memory/i, "NOMEM"],
  [/string or blob too big/i, "TOOBIG"],
  [/interrupted/i, "INTERRUPT"],
  [/bad parameter or other API misuse|not an error/i, "MISUSE"],
];

/** Classify by message text; the generic "ERROR" when nothing more specific matches. */
export function resultCodeFromMessage(message: string): SqliteResultCode {
  for (const [pattern, code] of BY_MESSAGE) if (pattern.test(message)) return code;
  return "ERROR";
}
