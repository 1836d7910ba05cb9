/**
 * Which runtime runs the CLI, and the sessiondb adapter that serves it. `#adapter` (this
 * package's "imports" map) resolves by export condition: @sessiondb/bun under Bun,
 * @sessiondb/deno under Deno, @sessiondb/node under Node; each exports core's runtime contract
 * as `runtime`, so there is one shape to use and nothing to sniff. The import is lazy, so a
 * missing adapter is reported, not a crash at startup.
 */
import type { SessionDbRuntime, SqliteDriver, Store, StoreOptions } from "@sessiondb/core";
import { DriverUnavailableError } from "@sessiondb/core";
import { watchLockWaits } from "./lock-wait.js";

export type { RuntimeName } from "@sessiondb/core";

/** What the CLI needs from an adapter. */
export interface Runtime {
  name: SessionDbRuntime["name"];
  version: string;
  /** The adapter's runtime contract: host, SQLite version probe, repairStore. */
  adapter: SessionDbRuntime;
  /** The driver every store of this process opens with: SESSIONDB_DRIVER, else the default. */
  driver: SqliteDriver;
  /** Open a store with `driver`. */
  open(path: string, options: StoreOptions): Store;
}

const HINTS: Record<SessionDbRuntime["name"], string> = {
  node: "reinstall the CLI: npm install -g sessiondb",
  bun: "bun add @sessiondb/bun",
  deno: "deno add npm:@sessiondb/deno",
};

/** The runtime executing this process (without loading its adapter). */
export function detectRuntime(): { name: SessionDbRuntime["name"]; version: string } {
  const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } };
  if (g.Bun) return { name: "bun", version: g.Bun.version };
  if (g.Deno) return { name: "deno", version: g.Deno.version.deno };
  return { name: "node", version: process.versions.node };
}

/**
 * Load this runtime's adapter. `SESSIONDB_DRIVER` names the driver (Node: "better-sqlite3" or
 * "node:sqlite"); an unknown name is the adapter's DriverUnavailableError listing the choices.
 */
export async function loadRuntime(): Promise<Runtime> {
  let adapter: SessionDbRuntime | undefined;
  try {
    // A computed specifier: the bundler leaves it to the runtime, whose export condition picks
    // the adapter, so only this runtime's adapter is ever loaded.
    const specifier: string = "#adapter";
    adapter = ((await import(specifier)) as { runtime?: SessionDbRuntime }).runtime;
  } catch (error) {
    const { name, version } = detectRuntime();
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new DriverUnavailableError(
      `sessiondb needs @sessiondb/${name} to run on ${name} ${version}, and it could not be loaded (${reason}). Install it (${HINTS[name]}), or run the CLI with Node ≥ 20.`,
      { cause: error },
    );
  }
  if (typeof adapter?.openStore !== "function") {
    throw new DriverUnavailableError(
      `The sessiondb adapter for ${detectRuntime().name} does not export its runtime; it is older or newer than this CLI.`,
    );
  }
  const choice = process.env.SESSIONDB_DRIVER || undefined;
  if (choice !== undefined && !adapter.driverNames.includes(choice)) {
    const known = adapter.driverNames.map((n) => JSON.stringify(n)).join(" or ");
    throw new DriverUnavailableError(
      `SESSIONDB_DRIVER=${JSON.stringify(choice)} is not a SQLite driver sessiondb has on ${adapter.name}: set it to ${known}, or unset it for the default`,
    );
  }
  let driver: SqliteDriver;
  try {
    driver = adapter.resolveDriver(choice);
  } catch (error) {
    // The adapter's advice ("npm install better-sqlite3") is for a project. The CLI brings
    // better-sqlite3 with it, so when no binding loads, say what mends the CLI.
    if (adapter.name !== "node" || choice || (error as { code?: unknown }).code !== "DRIVER_UNAVAILABLE")
      throw error;
    throw new DriverUnavailableError(
      `No SQLite binding loads in Node ${adapter.version}: better-sqlite3, which comes with sessiondb, is missing or not built for this Node, and node:sqlite needs Node ≥ 22.13. Reinstall sessiondb with this Node so better-sqlite3 can install its prebuilt binary or compile one (npm install -g sessiondb --allow-scripts=better-sqlite3), or run the CLI on Node ≥ 22.13, on Bun (bunx sessiondb) or on Deno.`,
      { cause: error },
    );
  }
  const runtime = adapter;
  // Lock waits observed, so a long one is announced (lock-wait.ts).
  driver = watchLockWaits(driver);
  return {
    name: runtime.name,
    version: runtime.version,
    adapter: runtime,
    driver,
    open: (path, options) => runtime.openStore(path, { ...options, driver }),
  };
}
