/**
 * The check repair runs before and after every strategy, on a scratch copy only: the store
 * opens, `checkIntegrity` (integrity_check, foreign_key_check, FTS5 integrity-check, docsize =
 * source counts) is clean, the canonical tables can be counted row by row through their own
 * b-trees, and no row named damaged before the repair is in it.
 */
import type { SqliteDriver } from "../driver.js";
import type { Host } from "../host/host.js";
import { MESSAGES, SESSION_MODEL_USAGE, SESSIONS } from "../schema/definition.js";
import { createStore, type Store } from "../store.js";
import type { DamagedRows } from "./damaged-cells.js";
import type { TableCounts } from "./types.js";

export const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Open a store on a scratch file (never the user's store): writable, no repair at open unless
 * asked. Only this process ever opens a scratch file, one connection at a time, so a SQLite with
 * the WAL-reset bug may write it in WAL mode (the bug needs concurrent connections). */
export function openScratch(driver: SqliteDriver, host: Host, path: string, repairAtOpen = false): Store {
  return createStore(driver, path, { host, repairFtsOnOpen: repairAtOpen, allowUnsafeWal: true });
}

/** `NOT INDEXED`: count through the table's own b-tree, so a damaged index cannot mislead. */
function countRows(driver: SqliteDriver, path: string): TableCounts {
  const conn = driver.open(path, { readOnly: true });
  const count = (table: string): number | null => {
    try {
      return Number(Object.values(conn.prepare(`SELECT count(*) FROM ${table} NOT INDEXED`).get() ?? {})[0]);
    } catch {
      return null;
    }
  };
  try {
    return {
      sessions: count(SESSIONS.name),
      messages: count(MESSAGES.name),
      usage: count(SESSION_MODEL_USAGE.name),
    };
  } finally {
    conn.close();
  }
}

/** Rows of `damaged` still in the database at `path`: a result that keeps one is not sound,
 * however clean its checks (an FTS rebuild makes a garbled row agree with its index). */
function damagedRowsKept(driver: SqliteDriver, path: string, damaged: DamagedRows): string[] {
  if (damaged.size === 0) return [];
  const conn = driver.open(path, { readOnly: true });
  try {
    return [...damaged].flatMap(([table, rowids]) => {
      const lookup = conn.prepare(`SELECT 1 FROM ${table} NOT INDEXED WHERE rowid = ?`);
      const kept = [...rowids].filter((rowid) => lookup.get(rowid) !== undefined);
      return kept.length === 0 ? [] : [`${table} ${kept.join(", ")}: named damaged, but still there`];
    });
  } finally {
    conn.close();
  }
}

/** Problems and counts of the database at `path`; `damaged`: rows that must not be in it. */
export function assess(
  driver: SqliteDriver,
  host: Host,
  path: string,
  damaged: DamagedRows = new Map(),
): { problems: string[]; counts: TableCounts } {
  let problems: string[];
  try {
    const store = openScratch(driver, host, path);
    try {
      problems = store.checkIntegrity().problems.map((problem) => problem.message);
    } finally {
      store.close();
    }
  } catch (error) {
    problems = [`the store does not open: ${message(error)}`];
  }
  let counts: TableCounts;
  try {
    counts = countRows(driver, path);
    problems.push(...damagedRowsKept(driver, path, damaged));
  } catch (error) {
    problems.push(`the tables cannot be read: ${message(error)}`);
    counts = { sessions: null, messages: null, usage: null };
  }
  return { problems, counts };
}
