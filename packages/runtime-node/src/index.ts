/**
 * @sessiondb/node — sessiondb on Node: `openStore(path, options?)` over better-sqlite3 or the
 * built-in node:sqlite, the Store and every error class, so one import is enough. Each export is
 * listed in the README; test/exports.test.ts pins the list.
 *
 * @example
 * import { openStore } from "@sessiondb/node";
 * const store = openStore("state.db");
 * store.createSession({ id: "s1", source: "cli" });
 * store.appendMessage("s1", { role: "user", content: "hello" });
 * store.close();
 */
import type { RuntimeRepairOptions, RuntimeStoreOptions, SessionDbRuntime } from "@sessiondb/core";
import { defineRuntime } from "@sessiondb/core/driver";
import { betterSqlite3Driver } from "./better-sqlite3.js";
import { nodeHost } from "./host.js";
import { nodeSqliteDriver } from "./node-sqlite.js";

/** The SQLite bindings this adapter knows. */
export type NodeDriverName = "better-sqlite3" | "node:sqlite";
/** `openStore` options: core's, plus `driver` (a NodeDriverName or a SqliteDriver). */
export type NodeStoreOptions = RuntimeStoreOptions<NodeDriverName>;
/** `repairStore` options: core's, plus `driver`. */
export type NodeRepairOptions = RuntimeRepairOptions<NodeDriverName>;

/** Node as a sessiondb runtime. The default driver is better-sqlite3 when it loads, else
 * node:sqlite, unless only the other's SQLite is free of the WAL-reset bug (see README). */
export const runtime: SessionDbRuntime<NodeDriverName> = defineRuntime({
  name: "node",
  version: process.versions.node,
  host: nodeHost,
  drivers: { "better-sqlite3": betterSqlite3Driver, "node:sqlite": nodeSqliteDriver },
  installHint:
    'Either run "npm install better-sqlite3" (any Node ≥ 20.16), or use Node ≥ 22.13, which has node:sqlite built in (Node ≥ 24.15 without an experimental warning).',
});

// One export each, typed (JSR documents the API from explicit types).
export const openStore: SessionDbRuntime<NodeDriverName>["openStore"] = runtime.openStore;
export const repairStore: SessionDbRuntime<NodeDriverName>["repairStore"] = runtime.repairStore;
export const resolveDriver: SessionDbRuntime<NodeDriverName>["resolveDriver"] = runtime.resolveDriver;
export type {
  CreateSessionInput,
  FtsStatus,
  IntegrityReport,
  Message,
  MessageInput,
  RepairReport,
  Role,
  SearchHit,
  SearchOptions,
  SearchResult,
  Session,
  SessionDbErrorCode,
  SessionSummary,
  SqliteDriver,
  StoreOptions,
  UsageInput,
  UsageRow,
} from "@sessiondb/core";
// The Store and the errors callers catch, from core, so one import is enough.
export {
  BackupDestinationError,
  DriverUnavailableError,
  InvalidInputError,
  SchemaOutdatedError,
  SchemaTooNewError,
  SessionDbError,
  SessionNotFoundError,
  SqliteError,
  Store,
  StoreBusyError,
  StoreClosedError,
  StoreCorruptError,
  StoreFullError,
  StoreInUseError,
  StoreOpenError,
  StoreReadOnlyError,
  UnsafeSqliteError,
} from "@sessiondb/core";
export { betterSqlite3Driver, nodeSqliteDriver };
