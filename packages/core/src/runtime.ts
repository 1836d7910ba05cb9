/**
 * The runtime contract. An adapter states what differs per runtime — which SQLite drivers it
 * offers (by name, in order of preference), its host, its name and version — and core does the
 * rest once for every runtime: the one-SQLite-library-per-process guard, the SQLite version
 * probe, the default driver, and splitting `openStore`'s options into the driver choice and the
 * Store's own. An adapter's index.ts is then one `defineRuntime` call and a list of exports.
 */
import { knownSqliteVersion, sqliteVersionOf } from "./binding-facts.js";
import type { SqliteDriver } from "./driver.js";
import { DriverUnavailableError } from "./errors.js";
import type { Host } from "./host/host.js";
import { isWalResetVulnerable } from "./journal.js";
import type { StoreOptions } from "./model/types.js";
import type { AdapterRepairOptions, RepairReport } from "./repair/types.js";
import { repairStore as repairWith } from "./repair-on-demand.js";
import { adapterOptions, adapterRepairOptions, repairInput } from "./store/options.js";
import { createStore, type Store } from "./store.js";

/** The JavaScript runtimes sessiondb has adapters for. */
export type RuntimeName = "node" | "bun" | "deno";

/** What an adapter states about its runtime. */
export interface RuntimeDefinition<Driver extends string> {
  /** Which runtime this is. */
  name: RuntimeName;
  /** The runtime's version, for messages ("22.13.0"). */
  version: string;
  /** The file-system host stores on this runtime use (permissions, lock files, free space). */
  host: Host;
  /** The drivers callers may pick by name, each under the name its driver reports. A factory
   * throws `DriverUnavailableError` (saying what to install) when its binding does not load.
   * The order is the default's preference. */
  drivers: { readonly [Name in Driver]: () => SqliteDriver };
  /** What to tell a user when no driver loads: what to install or which version to run. */
  installHint: string;
}

/** An adapter's `openStore` options: the Store's, plus which driver (a name or a driver object). */
export interface RuntimeStoreOptions<Driver extends string = string> extends StoreOptions {
  /** A driver name this runtime offers, or a driver object; default: see `resolveDriver`. */
  driver?: Driver | SqliteDriver | null | undefined;
}

/** An adapter's `repairStore` options: core's, with the driver choice in place of driver and host. */
export interface RuntimeRepairOptions<Driver extends string = string> extends AdapterRepairOptions {
  /** A driver name this runtime offers, or a driver object; default: see `resolveDriver`. */
  driver?: Driver | SqliteDriver | null | undefined;
}

/** What `defineRuntime` gives an adapter to export: the same shape on every runtime. */
export interface SessionDbRuntime<Driver extends string = string> {
  /** Which runtime this is. */
  readonly name: RuntimeName;
  /** The runtime's version. */
  readonly version: string;
  /** The host stores opened here use. */
  readonly host: Host;
  /** The driver names `openStore({ driver })` accepts, in order of preference. */
  readonly driverNames: readonly Driver[];
  /**
   * A driver by name, a driver object as is, or (no choice) the default: the driver this process
   * already opened a store with, else the first that loads whose SQLite does not have the
   * WAL-reset bug, else the first that loads. Throws `DriverUnavailableError` for an unknown
   * name, or when no driver loads.
   */
  resolveDriver(choice?: Driver | SqliteDriver): SqliteDriver;
  /** The SQLite version behind a driver (default: the default driver), read from an in-memory
   * database: no file is touched. */
  sqliteVersion(choice?: Driver | SqliteDriver): string;
  /** Open (creating or upgrading when writable) the store at `path`. */
  openStore(path: string, options?: RuntimeStoreOptions<Driver> | null): Store;
  /** Repair a damaged store (core's `repairStore`); never writes the damaged file. */
  repairStore(path: string, options?: RuntimeRepairOptions<Driver>): Promise<RepairReport>;
}

/** The version a driver's SQLite reports: known once a store of this driver was opened, else
 * read from an in-memory database. */
function probeSqliteVersion(driver: SqliteDriver): string {
  const known = knownSqliteVersion(driver);
  if (known !== undefined) return known;
  const connection = driver.open(":memory:", { readOnly: false });
  try {
    return sqliteVersionOf(driver, connection);
  } finally {
    connection.close();
  }
}

/** Build the runtime an adapter exports. Call it once per adapter, at module level: the
 * library guard is per `defineRuntime` call, and a process runs one runtime. */
export function defineRuntime<Driver extends string>(
  definition: RuntimeDefinition<Driver>,
): SessionDbRuntime<Driver> {
  const { name, version, host, drivers, installHint } = definition;
  const driverNames = Object.keys(drivers) as Driver[];
  const loaded = new Map<Driver, SqliteDriver>();
  /**
   * The driver this process's stores use, set by the first open and never changed: two SQLite
   * builds touching one file in one process break each other's POSIX locks (sqlite.org "How To
   * Corrupt", §2.3). The guard goes by driver name, for driver objects too: a name stands for
   * the SQLite library behind it.
   */
  let claimed: SqliteDriver | undefined;

  const isDriverName = (value: string): value is Driver => Object.hasOwn(drivers, value);

  function load(driverName: Driver): SqliteDriver {
    let driver = loaded.get(driverName);
    if (!driver) {
      driver = drivers[driverName]();
      loaded.set(driverName, driver);
    }
    return driver;
  }

  /** The first driver that loads and whose SQLite lacks the WAL-reset bug (with the bug, core
   * keeps new stores in DELETE mode and refuses to write WAL stores), else the first that loads.
   * With one driver there is nothing to choose between, so it is not probed: the probe opens an
   * in-memory database to read its version, ~1 ms of a short process's start on Bun and Deno,
   * and the store's own open reads the version anyway. */
  function pickDefault(): SqliteDriver {
    let fallback: SqliteDriver | undefined;
    const failures: string[] = [];
    for (const driverName of driverNames) {
      let driver: SqliteDriver;
      try {
        driver = load(driverName);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
        continue;
      }
      if (driverNames.length === 1 || !isWalResetVulnerable(probeSqliteVersion(driver))) return driver;
      fallback ??= driver;
    }
    if (fallback) return fallback;
    throw new DriverUnavailableError(
      `No SQLite binding is available on ${name} ${version}. ${installHint} Details: ${failures.join(" | ")}`,
    );
  }

  function resolveDriver(choice?: Driver | SqliteDriver): SqliteDriver {
    if (choice === undefined) return claimed ?? pickDefault();
    if (typeof choice !== "string") return choice;
    if (!isDriverName(choice)) {
      const known = driverNames.map((known) => JSON.stringify(known)).join(", ");
      throw new DriverUnavailableError(
        `Unknown driver ${JSON.stringify(choice)}: on ${name} use ${known} or a SqliteDriver object.`,
      );
    }
    return load(choice);
  }

  /** Resolve and claim: the first store opened decides this process's SQLite library. */
  function claim(choice: Driver | SqliteDriver | undefined): SqliteDriver {
    const driver = resolveDriver(choice);
    if (claimed && claimed.name !== driver.name) {
      throw new DriverUnavailableError(
        `This process already opened a store with ${claimed.name}, so it will not also use ${driver.name}: two SQLite libraries in one process break each other's file locks (sqlite.org "How To Corrupt", §2.3). Use the same driver for every store, or open this one from another process.`,
      );
    }
    claimed = driver;
    return driver;
  }

  return {
    name,
    version,
    host,
    driverNames,
    resolveDriver,
    sqliteVersion: (choice) => probeSqliteVersion(resolveDriver(choice)),
    openStore(path, options) {
      const { driver: choice, storeOptions } = adapterOptions(options, host);
      return createStore(claim(choice as Driver | SqliteDriver | undefined), path, storeOptions);
    },
    // async: a refused input or driver is a rejection, as every later failure of a repair is.
    // The input is checked before the driver is claimed: a refused call changes nothing.
    async repairStore(path, options) {
      const { driver: choice, rest } = adapterRepairOptions(options);
      const input = repairInput(path, { ...rest, driver: resolveDriver(choice as Driver | undefined), host });
      claim(input.options.driver);
      return repairWith(input.path, input.options);
    },
  };
}
