/**
 * @sessiondb/node — sessiondb on Node: `openStore(path, options?)` over better-sqlite3 or the
 * built-in node:sqlite, plus everything core exports, so one import is enough.
 *
 * @example
 * import { openStore } from "@sessiondb/node";
 * const store = openStore("state.db");
 * store.createSession({ id: "s1", source: "cli" });
 * store.appendMessage("s1", { role: "user", content: "hello" });
 * store.close();
 */
import process from "node:process";
import {
  type AdapterRepairOptions,
  adapterOptions,
  createStore,
  DriverUnavailableError,
  isWalResetVulnerable,
  type RepairReport,
  repairStore as repairWith,
  type SqliteDriver,
  type Store,
  type StoreOptions,
} from "@sessiondb/core";
import { nodeFsHost } from "@sessiondb/core/host";
import { betterSqlite3Driver } from "./better-sqlite3.js";
import { nodeSqliteDriver } from "./node-sqlite.js";

export * from "@sessiondb/core";
export { betterSqlite3Driver, loadBetterSqlite3 } from "./better-sqlite3.js";
export { loadNodeSqlite, nodeSqliteDriver } from "./node-sqlite.js";

/** The SQLite bindings this adapter knows. */
export type NodeDriverName = "better-sqlite3" | "node:sqlite";

/** Core's store options plus the choice of binding. */
export interface NodeStoreOptions extends StoreOptions {
  /** Which binding to use; default: better-sqlite3 when it loads, else node:sqlite (see README). */
  driver?: NodeDriverName | SqliteDriver;
}

const FACTORIES: Record<NodeDriverName, () => SqliteDriver> = {
  "better-sqlite3": betterSqlite3Driver,
  "node:sqlite": nodeSqliteDriver,
};

const drivers = new Map<NodeDriverName, SqliteDriver>();

/** The SQLite library this process's stores use; set by the first open, never changed. */
let processLibrary: NodeDriverName | undefined;

function isNodeDriverName(name: string): name is NodeDriverName {
  return Object.hasOwn(FACTORIES, name);
}

function load(name: NodeDriverName): SqliteDriver {
  let driver = drivers.get(name);
  if (!driver) {
    driver = FACTORIES[name]();
    drivers.set(name, driver);
  }
  return driver;
}

/** The library's version, read from an in-memory database (no file is touched). */
function sqliteVersionOf(driver: SqliteDriver): string {
  const connection = driver.open(":memory:", { readOnly: false });
  try {
    return String(connection.prepare("SELECT sqlite_version() AS v").get()?.v);
  } finally {
    connection.close();
  }
}

/**
 * The default: better-sqlite3 when it loads, else node:sqlite. If the first one's SQLite has the
 * WAL-reset bug and the other's does not, the other wins: core would otherwise keep new stores
 * in DELETE mode and refuse to write existing WAL stores.
 */
function pickDefault(): SqliteDriver {
  const loaded: Array<{ driver: SqliteDriver; vulnerable: boolean }> = [];
  const failures: string[] = [];
  for (const name of ["better-sqlite3", "node:sqlite"] as const) {
    let driver: SqliteDriver;
    try {
      driver = load(name);
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
      continue;
    }
    const vulnerable = isWalResetVulnerable(sqliteVersionOf(driver));
    if (!vulnerable) return driver;
    loaded.push({ driver, vulnerable });
  }
  const first = loaded[0];
  if (first) return first.driver;
  throw new DriverUnavailableError(
    `No SQLite binding is available on Node ${process.versions.node}. Either run "npm install better-sqlite3" (any Node ≥ 20), or use Node ≥ 22.13, which has node:sqlite built in (Node ≥ 24.15 without an experimental warning). Details: ${failures.join(" | ")}`,
  );
}

/**
 * Resolve a driver choice to a driver: a name, a driver object (used as is), or the default.
 * Once a store in this process used one of the two built-in libraries, asking for the other
 * throws: two SQLite builds touching one file in one process break each other's POSIX locks
 * (sqlite.org "How To Corrupt", §2.3).
 */
export function resolveDriver(choice?: NodeDriverName | SqliteDriver): SqliteDriver {
  if (choice === undefined) return processLibrary ? load(processLibrary) : pickDefault();
  if (typeof choice !== "string") return choice;
  if (!isNodeDriverName(choice)) {
    throw new DriverUnavailableError(
      `Unknown driver ${JSON.stringify(choice)}: use "better-sqlite3", "node:sqlite" or a SqliteDriver object.`,
    );
  }
  return load(choice);
}

function claimLibrary(driver: SqliteDriver): void {
  if (!isNodeDriverName(driver.name)) return;
  if (processLibrary && processLibrary !== driver.name) {
    throw new DriverUnavailableError(
      `This process already opened a store with ${processLibrary}, so it will not also use ${driver.name}: two SQLite libraries in one process break each other's file locks (sqlite.org "How To Corrupt", §2.3). Use { driver: "${processLibrary}" }, or open this store from another process.`,
    );
  }
  processLibrary = driver.name;
}

/**
 * Open (creating or upgrading when writable) the store at `path`.
 * Throws `DriverUnavailableError` when no SQLite binding loads, saying what to install.
 */
export function openStore(path: string, options?: NodeStoreOptions | null): Store {
  const { driver: choice, storeOptions } = adapterOptions(options, nodeFsHost);
  const driver = resolveDriver(choice as NodeDriverName | SqliteDriver | undefined);
  claimLibrary(driver);
  return createStore(driver, path, storeOptions);
}

/** Repair a damaged store (core's `repairStore`) with the chosen or default binding; never
 * writes the damaged file. */
export function repairStore(
  path: string,
  options: AdapterRepairOptions & { driver?: NodeDriverName | SqliteDriver } = {},
): Promise<RepairReport> {
  const { driver: choice, ...rest } = options;
  const driver = resolveDriver(choice);
  claimLibrary(driver);
  return repairWith(path, { ...rest, driver, host: nodeFsHost });
}
