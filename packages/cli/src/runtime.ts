/**
 * Which runtime runs the CLI, and the sessiondb adapter that serves it: @sessiondb/node on Node,
 * @sessiondb/bun on Bun, @sessiondb/deno on Deno. Adapters are imported lazily by a computed
 * name, so a runtime never loads another runtime's binding (and a missing adapter is reported,
 * not a crash at startup).
 */
import process from "node:process";
import type { SqliteDriver, Store, StoreOptions } from "@sessiondb/core";
import { DriverUnavailableError } from "@sessiondb/core";

export type RuntimeName = "node" | "bun" | "deno";

/** What the CLI needs from an adapter. */
export interface Runtime {
  name: RuntimeName;
  version: string;
  /** Open a store (the adapter's `openStore`). */
  open(path: string, options: StoreOptions): Store;
  /** The driver behind `open`, for read-only side queries (role counts); undefined if the adapter hides it. */
  driver: SqliteDriver | undefined;
}

/** Structural view of an adapter module: `openStore` always, a driver resolver where exported. */
interface AdapterModule {
  openStore(path: string, options?: StoreOptions & { driver?: unknown }): Store;
  /** @sessiondb/node: pick better-sqlite3 or node:sqlite. */
  resolveDriver?: (choice?: string) => SqliteDriver;
  /** @sessiondb/bun. */
  bunSqliteDriver?: () => SqliteDriver;
  /** @sessiondb/deno (its default binding). */
  nodeSqliteDriver?: () => SqliteDriver;
}

/** The adapter's driver: the one its openStore is given (Node, Deno) or uses by default (Bun). */
function driverOf(adapter: AdapterModule, choice: string | undefined): SqliteDriver | undefined {
  if (adapter.resolveDriver) return adapter.resolveDriver(choice);
  if (choice) return undefined;
  return adapter.bunSqliteDriver?.() ?? adapter.nodeSqliteDriver?.();
}

const ADAPTERS: Record<RuntimeName, { pkg: string; hint: string }> = {
  node: { pkg: "@sessiondb/node", hint: "npm install @sessiondb/node better-sqlite3" },
  bun: { pkg: "@sessiondb/bun", hint: "bun add @sessiondb/bun" },
  deno: { pkg: "@sessiondb/deno", hint: "deno add npm:@sessiondb/deno" },
};

/** The runtime executing this process. */
export function detectRuntime(): { name: RuntimeName; version: string } {
  const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } };
  if (g.Bun) return { name: "bun", version: g.Bun.version };
  if (g.Deno) return { name: "deno", version: g.Deno.version.deno };
  return { name: "node", version: process.versions.node };
}

/**
 * Load the adapter for this runtime. `SESSIONDB_DRIVER` picks a binding where the adapter offers
 * a choice (Node: "better-sqlite3" or "node:sqlite").
 */
export async function loadRuntime(): Promise<Runtime> {
  const { name, version } = detectRuntime();
  const { pkg, hint } = ADAPTERS[name];
  let adapter: AdapterModule;
  try {
    // A computed specifier: bundlers and type-checkers leave it alone, and only this runtime's
    // adapter is ever loaded.
    const specifier: string = pkg;
    adapter = (await import(specifier)) as AdapterModule;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new DriverUnavailableError(
      `sessiondb needs ${pkg} to run on ${name} ${version}, and it could not be loaded (${reason}). Install it (${hint}), or run the CLI with Node ≥ 20.`,
      { cause: error },
    );
  }
  if (typeof adapter.openStore !== "function") {
    throw new DriverUnavailableError(
      `${pkg} does not export openStore(); it is older or newer than this CLI.`,
    );
  }
  const choice = process.env.SESSIONDB_DRIVER || undefined;
  const driver = driverOf(adapter, choice);
  if (choice && !driver) {
    throw new DriverUnavailableError(
      `SESSIONDB_DRIVER=${choice} was set, but ${pkg} offers no driver choice.`,
    );
  }
  return {
    name,
    version,
    driver,
    open: (path, options) => adapter.openStore(path, driver ? { ...options, driver } : options),
  };
}
