/**
 * The runtime names the built @sessiondb/bun exports, pinned: the README's export list, no
 * tuning constants, no helpers. A new export is a decision: add it here and to the README.
 * Turbo builds before testing; run `npm run build` first when testing by hand.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";

const DIST = new URL("../dist/index.js", import.meta.url);
const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

const NAMES = [
  // this runtime
  "bunSqliteDriver",
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
  it("exactly the documented list (run npm run build first)", async () => {
    expect(existsSync(DIST)).toBe(true);
    expect(Object.keys(await import(DIST.href)).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) expect(README).toMatch(new RegExp(`\`${name}[\`(]`));
  });
});
