/**
 * @sessiondb/deno — sessiondb on Deno: `openStore(path, options?)` over the built-in
 * node:sqlite (default) or @db/sqlite (pass `dbSqliteDriver(Database)`), plus everything core
 * exports, so one import is enough.
 *
 * Permissions: read and write on the store's folder, nothing else (see README).
 *
 * @example
 * import { openStore } from "@sessiondb/deno";
 * const store = openStore("state.db");
 * store.createSession({ id: "s1", source: "cli" });
 * store.appendMessage("s1", { role: "user", content: "hello" });
 * store.close();
 */
import {
  type AdapterRepairOptions,
  adapterOptions,
  createStore,
  DriverUnavailableError,
  InvalidInputError,
  type RepairReport,
  repairStore as repairWith,
  type SqliteDriver,
  type Store,
  type StoreOptions,
} from "@sessiondb/core";
import { nodeFsHost } from "@sessiondb/core/host";
import { nodeSqliteDriver } from "./node-sqlite.js";

export * from "@sessiondb/core";
export {
  classifyDbSqliteError,
  type DbSqliteDatabase,
  type DbSqliteDatabaseClass,
  type DbSqliteOpenOptions,
  type DbSqliteStatement,
  dbSqliteDriver,
} from "./db-sqlite.js";
export { classifyNodeSqliteError, nodeSqliteDriver } from "./node-sqlite.js";

/** Core's store options plus the choice of binding. */
export interface DenoStoreOptions extends StoreOptions {
  /** The SQLite driver; default: Deno's built-in node:sqlite. */
  driver?: SqliteDriver;
}

let defaultDriver: SqliteDriver | undefined;

function nodeSqliteDefault(): SqliteDriver {
  defaultDriver ??= nodeSqliteDriver();
  return defaultDriver;
}

/**
 * The SQLite library this process's stores use: node:sqlite is built into Deno, @db/sqlite
 * loads another build through FFI, and two builds touching one file in one process break each
 * other's POSIX locks (sqlite.org "How To Corrupt", §2.3). Set by the first open.
 */
let processLibrary: string | undefined;

function claimLibrary(driver: SqliteDriver): void {
  if (processLibrary && processLibrary !== driver.name) {
    throw new DriverUnavailableError(
      `This process already opened a store with ${processLibrary}, so it will not also use ${driver.name}: two SQLite libraries in one process break each other's file locks (sqlite.org "How To Corrupt", §2.3). Use the same driver for every store, or open this one from another process.`,
    );
  }
  processLibrary = driver.name;
}

/** Open (creating or upgrading when writable) the store at `path`. */
export function openStore(path: string, options?: DenoStoreOptions | null): Store {
  const { driver: choice, storeOptions } = adapterOptions(options, nodeFsHost);
  // Deno has no driver names: node:sqlite is the default, @db/sqlite a driver object.
  if (typeof choice === "string") {
    throw new InvalidInputError(
      "openStore.driver",
      "expected a SqliteDriver such as dbSqliteDriver(Database); leave it out for node:sqlite",
    );
  }
  const driver = choice ?? nodeSqliteDefault();
  claimLibrary(driver);
  return createStore(driver, path, storeOptions);
}

/** Repair a damaged store (core's `repairStore`) with node:sqlite or the given driver; never
 * writes the damaged file. */
export function repairStore(
  path: string,
  options: AdapterRepairOptions & { driver?: SqliteDriver } = {},
): Promise<RepairReport> {
  const { driver: choice, ...rest } = options;
  const driver = choice ?? nodeSqliteDefault();
  claimLibrary(driver);
  return repairWith(path, { ...rest, driver, host: nodeFsHost });
}
