/**
 * The driver contract and the core conformance suite on @db/sqlite (JSR, FFI). Our code never
 * imports JSR, so the module comes from SESSIONDB_DB_SQLITE: "jsr:@db/sqlite@0.13" where JSR is
 * reachable, or a local checkout's mod.ts. Offline, load it with the import map in
 * ./db-sqlite-offline (two tiny shims for its JSR imports) and DENO_SQLITE_PATH naming a SQLite
 * shared library:
 *
 *   SESSIONDB_DB_SQLITE=/path/to/denodrivers/sqlite3/mod.ts DENO_SQLITE_PATH=/usr/lib/x86_64-linux-gnu/libsqlite3.so.0 \
 *     deno test --import-map test/db-sqlite-offline/import_map.json --allow-read --allow-write --allow-run \
 *       --allow-env=TMPDIR,TMP,TEMP,SESSIONDB_DB_SQLITE,DENO_SQLITE_PATH,DENO_SQLITE_LOCAL --allow-ffi test/db-sqlite.test.ts
 *
 * Unset, the run is skipped with the reason printed. One SQLite library per process: this file
 * loads only @db/sqlite's, so it must run in its own `deno test` process (the npm script does).
 */
import { describe, it } from "node:test";
import { runConformance, runDriverContract } from "@sessiondb/core/conformance";
import { nodeFsHost } from "@sessiondb/core/host";
import { type DbSqliteDatabaseClass, dbSqliteDriver } from "../src/db-sqlite.ts";
import { holdLock } from "./lock-holder.ts";

const specifier = Deno.env.get("SESSIONDB_DB_SQLITE");

if (!specifier) {
  const reason =
    "SESSIONDB_DB_SQLITE is unset (point it at jsr:@db/sqlite@0.13 or a local checkout's mod.ts)";
  console.log(`[db-sqlite.test] skipping @db/sqlite: ${reason}`);
  describe("@db/sqlite", () => {
    it(`skipped: ${reason}`, { skip: reason }, () => {});
  });
} else {
  const url = /^[a-z]+:/.test(specifier) ? specifier : new URL(`file://${specifier}`).href;
  const mod = (await import(url)) as { Database: DbSqliteDatabaseClass; SQLITE_VERSION: string };
  console.log(`[db-sqlite.test] @db/sqlite from ${specifier}, SQLite ${mod.SQLITE_VERSION}`);
  const driver = dbSqliteDriver(mod.Database);
  runDriverContract({
    name: `@db/sqlite (SQLite ${mod.SQLITE_VERSION})`,
    driverName: "@db/sqlite",
    driver,
    holdLock,
    // A failed statement is a plain Error carrying only SQLite's message; opens carry the code.
    extendedCodes: { statements: false, exec: false },
    dqsFromBuild: true,
    describe,
    it,
  });
  runConformance({
    name: `@db/sqlite (SQLite ${mod.SQLITE_VERSION})`,
    driver,
    host: nodeFsHost,
    describe,
    it,
  });
}
