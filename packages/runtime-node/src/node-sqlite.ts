/**
 * Driver for Node's built-in `node:sqlite` (`DatabaseSync`): unflagged since Node 22.13 / 23.4,
 * without an ExperimentalWarning since Node 24.15. Loaded lazily, so a process that uses
 * better-sqlite3 never opens a file through node:sqlite's SQLite build (two builds touching one
 * file in one process break POSIX lock bookkeeping: sqlite.org "How To Corrupt", §2.3).
 *
 * The driver itself is core's `nodeSqliteApiDriver` (shared with Deno); this file only loads
 * the module, so it type-checks against any `@types/node` and never imports `node:sqlite` at
 * module load.
 */

import { DriverUnavailableError } from "@sessiondb/core";
import {
  type NodeSqliteApiBackup,
  type NodeSqliteApiDatabaseClass,
  nodeSqliteApiDriver,
  type SqliteDriver,
} from "@sessiondb/core/driver";
import { isDirectoryPath } from "./host.js";
import { packageRequire } from "./require.js";

/** The `node:sqlite` module, structurally. */
interface NodeSqliteModule {
  DatabaseSync: NodeSqliteApiDatabaseClass;
  /** Online backup: Node ≥ 22.16 / 23.8. */
  backup?: NodeSqliteApiBackup;
}

let cached: NodeSqliteModule | undefined;

/** Load `node:sqlite`, or throw `DriverUnavailableError` saying which Node version has it. */
function loadNodeSqlite(): NodeSqliteModule {
  if (cached) return cached;
  let loaded: Partial<NodeSqliteModule> | undefined;
  let cause: unknown;
  // getBuiltinModule keeps bundlers from resolving or rewriting the specifier; without it
  // (Node < 20.16) packageRequire says which Node to run.
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const load = getBuiltin ? (id: string) => getBuiltin.call(process, id) : packageRequire();
  try {
    loaded = load("node:sqlite") as Partial<NodeSqliteModule>;
  } catch (error) {
    cause = error;
  }
  if (typeof loaded?.DatabaseSync !== "function") {
    throw new DriverUnavailableError(
      `node:sqlite is not available on Node ${process.versions.node}: it is built into Node ≥ 22.13 and ≥ 23.4 (22.5–22.12 and 23.0–23.3 need --experimental-sqlite). Upgrade Node, or run "npm install better-sqlite3" and use the better-sqlite3 driver.`,
      { cause },
    );
  }
  cached = loaded as NodeSqliteModule;
  return cached;
}

/** The node:sqlite driver. Throws `DriverUnavailableError` when this Node has no node:sqlite. */
export function nodeSqliteDriver(): SqliteDriver {
  const { DatabaseSync, backup } = loadNodeSqlite();
  return nodeSqliteApiDriver(DatabaseSync, {
    isDirectory: isDirectoryPath,
    backup,
  });
}
