/**
 * @sessiondb/bun — sessiondb on Bun: `openStore(path, options?)` over the built-in bun:sqlite,
 * plus everything core exports, so one import is enough.
 *
 * @example
 * import { openStore } from "@sessiondb/bun";
 * const store = openStore("state.db");
 * store.createSession({ id: "s1", source: "cli" });
 * store.appendMessage("s1", { role: "user", content: "hello" });
 * store.close();
 */
import {
  type AdapterRepairOptions,
  adapterOptions,
  createStore,
  type RepairReport,
  repairStore as repairWith,
  type SqliteDriver,
  type Store,
  type StoreOptions,
} from "@sessiondb/core";
import { nodeFsHost } from "@sessiondb/core/host";
import { bunSqliteDriver } from "./bun-sqlite.js";

export * from "@sessiondb/core";
export { bunSqliteDriver } from "./bun-sqlite.js";

let driver: SqliteDriver | undefined;

/** Open (creating or upgrading when writable) the store at `path` with bun:sqlite. */
export function openStore(path: string, options?: StoreOptions | null): Store {
  const { storeOptions } = adapterOptions(options, nodeFsHost);
  driver ??= bunSqliteDriver();
  return createStore(driver, path, storeOptions);
}

/** Repair a damaged store with bun:sqlite (core's `repairStore`); never writes the damaged file. */
export function repairStore(path: string, options: AdapterRepairOptions = {}): Promise<RepairReport> {
  driver ??= bunSqliteDriver();
  return repairWith(path, { ...options, driver, host: nodeFsHost });
}
