/**
 * A Hermes home for a test: a temporary folder with `.hermes/state.db` built from the fixture's
 * SQL (fixtures/hermes/state.sql) through the runtime's own driver, as Hermes would have left it.
 */
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SqliteDriver } from "@sessiondb/core";

export const MAIN = "20260301_101500_a1b2c3";
export const CHILD = "20260301_101630_d4e5f6";

const SQL = fileURLToPath(new URL("../fixtures/hermes/state.sql", import.meta.url));

export function hermesHome(driver: SqliteDriver): { home: string; database: string } {
  const home = mkdtempSync(join(tmpdir(), "sessiondb-hermes-"));
  mkdirSync(join(home, ".hermes"));
  const database = join(home, ".hermes", "state.db");
  write(driver, database, readFileSync(SQL, "utf8"));
  return { home, database };
}

/** Runs `sql` on the database as another program (Hermes) would: its own connection. */
export function write(driver: SqliteDriver, database: string, sql: string): void {
  const db = driver.open(database, { readOnly: false });
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}
