/**
 * The runtime names each entry of the built package exports, pinned: a new export is a decision
 * (add it here and to the README's export list), never an accident of `export *`. Tuning
 * constants and internal helpers must not appear. Turbo builds before testing; run
 * `npm run build` first when testing by hand.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const dist = (file: string) => new URL(`../dist/${file}`, import.meta.url);
const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

const ERRORS = [
  "BackupDestinationError",
  "DriverUnavailableError",
  "InvalidInputError",
  "SchemaOutdatedError",
  "SchemaTooNewError",
  "SessionDbError",
  "SessionNotFoundError",
  "SqliteError",
  "StoreBusyError",
  "StoreClosedError",
  "StoreCorruptError",
  "StoreFullError",
  "StoreInUseError",
  "StoreOpenError",
  "StoreReadOnlyError",
  "UnsafeSqliteError",
];

const ENTRIES: Record<string, { file: string; names: string[] }> = {
  "@sessiondb/core": {
    file: "index.js",
    names: [
      ...ERRORS,
      "AsyncStore",
      "ERROR_CODES",
      "LIMITS",
      "ROLES",
      "SQLITE_RESULT_CODES",
      "Store",
      "admissionLockPath",
      "companionsOf",
      "createAsyncStore",
      "createStore",
      "isWalResetVulnerable",
      "readAdmissionHolder",
      "repairStore",
      "sqliteFileOf",
    ],
  },
  "@sessiondb/core/driver": {
    file: "driver.js",
    names: [
      "connectWithOpenPatience",
      "defineDriver",
      "defineRuntime",
      "displayUrl",
      "isBlankSql",
      "lazyNodeFsHost",
      "lockFileAdmission",
      "nodeSqliteApiDriver",
      "resultCodeFromMessage",
      "resultCodeFromName",
      "resultCodeFromNumber",
    ],
  },
  "@sessiondb/core/host": { file: "host.js", names: ["isDirectoryPath", "nodeFsHost"] },
  // Not covered by semver: what @sessiondb/conformance needs of the internals (src/testing.ts).
  "@sessiondb/core/testing": {
    file: "testing.js",
    names: [
      "BY_ROLE",
      "CHECKPOINT_EVERY_WRITES",
      "FILE_RECHECK_AFTER_MS",
      "SCHEMA_VERSION",
      "STORE_FILE_MODE",
      "TOOL_CONTENT_PREFIX_CHARS",
      "lockExclusive",
      "probeReadsTextWhole",
    ],
  },
};

describe.skipIf(!existsSync(dist("index.js")))("exported names (needs npm run build)", () => {
  for (const [entry, { file, names }] of Object.entries(ENTRIES)) {
    it(`${entry} exports exactly its list, each documented in the README`, async () => {
      const exported = Object.keys(await import(dist(file).href)).sort();
      expect(exported).toEqual([...names].sort());
      for (const name of names) expect(README, `README lists ${name}`).toMatch(new RegExp(`\`${name}[\`(]`));
    });
  }
});
