/**
 * The driver contract and the core conformance suite on @db/sqlite (JSR, FFI), plus what the
 * SQLite library under it must show. Run it through `npm run test:db-sqlite`
 * (scripts/db-sqlite.mjs), which runs it once per SQLite library and sets:
 *
 * - SESSIONDB_DB_SQLITE: the module ("jsr:@db/sqlite@0.13" or a local copy's mod.ts; offline, a
 *   local copy loads with the import map in ./db-sqlite-offline);
 * - DENO_SQLITE_PATH: the SQLite shared library @db/sqlite loads;
 * - SESSIONDB_DB_SQLITE_EXPECT: JSON `{ sqlite, journal, ftsCorruptionNamed }`, what that library
 *   is and does (its version, a new store's journal mode, whether FTS5 names itself in
 *   corruption messages).
 *
 * Unset, the run is skipped with the reason printed. One SQLite library per process: this file
 * loads only @db/sqlite's, so it runs in its own `deno test` process.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runConformance, runDriverContract } from "@sessiondb/conformance";
import { createStore } from "@sessiondb/core";
import { type DbSqliteDatabaseClass, dbSqliteDriver } from "../src/db-sqlite.ts";
import { denoHost } from "../src/host.ts";
import { appender } from "./backup-appender.ts";
import { holdLock } from "./lock-holder.ts";

/** What the runner says the loaded SQLite is and does. */
interface Expectation {
  sqlite: string;
  journal: "wal" | "delete";
  ftsCorruptionNamed: boolean;
}

const specifier = Deno.env.get("SESSIONDB_DB_SQLITE");
const expectation = Deno.env.get("SESSIONDB_DB_SQLITE_EXPECT");

if (!specifier || !expectation) {
  const reason =
    "SESSIONDB_DB_SQLITE or SESSIONDB_DB_SQLITE_EXPECT is unset (run it with `npm run test:db-sqlite`)";
  console.log(`[db-sqlite.test] skipping @db/sqlite: ${reason}`);
  describe("@db/sqlite", () => {
    it(`skipped: ${reason}`, { skip: reason }, () => {});
  });
} else {
  const expect = JSON.parse(expectation) as Expectation;
  const url = /^[a-z]+:/.test(specifier) ? specifier : new URL(`file://${specifier}`).href;
  const mod = (await import(url)) as { Database: DbSqliteDatabaseClass; SQLITE_VERSION: string };
  const name = `@db/sqlite (SQLite ${mod.SQLITE_VERSION})`;
  console.log(`[db-sqlite.test] @db/sqlite from ${specifier}, SQLite ${mod.SQLITE_VERSION}`);
  const driver = dbSqliteDriver(mod.Database);

  describe(`${name}: the library`, () => {
    it(`is SQLite ${expect.sqlite}`, () => {
      assert.equal(mod.SQLITE_VERSION, expect.sqlite);
    });

    it(`a new store, with no version injected, is in ${expect.journal.toUpperCase()} mode`, () => {
      const dir = mkdtempSync(join(tmpdir(), "sessiondb-db-sqlite-"));
      try {
        const path = join(dir, "state.db");
        const store = createStore(driver, path, { host: denoHost });
        assert.equal(store.sqliteVersion, expect.sqlite);
        assert.equal(store.journalMode, expect.journal);
        store.close();
        // The file agrees: a fresh connection reads the mode from its header.
        const raw = driver.open(path, { readOnly: true });
        assert.equal(String(raw.prepare("PRAGMA journal_mode").get()?.journal_mode), expect.journal);
        raw.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  runDriverContract({
    name,
    driverName: "@db/sqlite",
    driver,
    holdLock,
    // A failed statement is a plain Error carrying only SQLite's message; opens carry the code.
    extendedCodes: { statements: false, exec: false },
    dqsFromBuild: true,
    ftsCorruptionNamed: expect.ftsCorruptionNamed,
    describe,
    it,
  });
  // The appender child writes with node:sqlite: another process, so another library is fine.
  runConformance({ name, driver, host: denoHost, appender, describe, it });
}
