/**
 * The runtime names the built @sessiondb/deno (npm) and its JSR source entry export, pinned: the
 * README's export list, no tuning constants, no helpers. A new export is a decision: add it here
 * and to the README. Turbo builds before testing; run `npm run build` first when testing by hand.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";

const DIST = new URL("../dist/index.js", import.meta.url);
const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

const NAMES = [
  // this runtime
  "dbSqliteDriver",
  "nodeSqliteDriver",
  "openStore",
  "repairStore",
  "resolveDriver",
  "runtime",
  // from core: the Store and the errors callers catch
  "BackupDestinationError",
  "DriverUnavailableError",
  "InvalidInputError",
  "SchemaOutdatedError",
  "SchemaTooNewError",
  "SessionDbError",
  "SessionNotFoundError",
  "SqliteError",
  "Store",
  "StoreBusyError",
  "StoreClosedError",
  "StoreCorruptError",
  "StoreFullError",
  "StoreInUseError",
  "StoreOpenError",
  "StoreReadOnlyError",
  "UnsafeSqliteError",
];

describe("exported names", () => {
  it("the npm build and the JSR source export exactly the documented list", async () => {
    assert.ok(existsSync(DIST), "dist/index.js is missing: run npm run build");
    const expected = [...NAMES].sort();
    assert.deepEqual(Object.keys(await import(DIST.href)).sort(), expected);
    assert.deepEqual(Object.keys(await import("../src/index.ts")).sort(), expected);
    for (const name of NAMES) assert.match(README, new RegExp(`\`${name}[\`(]`), `README lists ${name}`);
  });
});
