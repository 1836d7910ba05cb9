/**
 * Facts about the SQLite library and binding behind a driver: its SQLite version, and whether it
 * reads TEXT past a NUL. They belong to the library and the binding, not to a connection (a
 * driver object stands for one SQLite library, which a process never swaps), so each is asked
 * once per driver object, on the first connection that needs it; every later open of a store
 * reuses the answer instead of sending the same statement again.
 */
import type { SqliteConnection, SqliteDriver } from "./driver.js";

interface BindingFacts {
  sqliteVersion?: string;
  readsTextWhole?: boolean;
}

const known = new WeakMap<SqliteDriver, BindingFacts>();

function factsOf(driver: SqliteDriver): BindingFacts {
  let facts = known.get(driver);
  if (!facts) {
    facts = {};
    known.set(driver, facts);
  }
  return facts;
}

/** The SQLite library version this connection runs on (asked every time). */
export function readSqliteVersion(conn: SqliteConnection): string {
  const row = conn.prepare("SELECT sqlite_version() AS v").get();
  return String(row === undefined ? undefined : Object.values(row)[0]);
}

/** Whether this connection's binding reads a TEXT value holding a NUL whole (asked every
 * time). Some (Deno's node:sqlite, @db/sqlite) stop at the first NUL although the whole value
 * is stored; on those, reads select TEXT columns through a guard (model/rows.ts). */
export function probeReadsTextWhole(conn: SqliteConnection): boolean {
  return conn.prepare("SELECT 'a' || char(0) || 'b' AS v").get()?.v === "a\u0000b";
}

/** The SQLite version behind `driver` when one of its connections has been asked already. */
export function knownSqliteVersion(driver: SqliteDriver): string | undefined {
  return known.get(driver)?.sqliteVersion;
}

/** The SQLite library version behind `driver`, asked on `conn` (one of its connections) the
 * first time. */
export function sqliteVersionOf(driver: SqliteDriver, conn: SqliteConnection): string {
  const facts = factsOf(driver);
  facts.sqliteVersion ??= readSqliteVersion(conn);
  return facts.sqliteVersion;
}

/** Whether `driver`'s binding reads TEXT past a NUL, asked on `conn` the first time. */
export function readsTextWholeOn(driver: SqliteDriver, conn: SqliteConnection): boolean {
  const facts = factsOf(driver);
  facts.readsTextWhole ??= probeReadsTextWhole(conn);
  return facts.readsTextWhole;
}
