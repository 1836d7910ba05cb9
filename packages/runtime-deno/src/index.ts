/**
 * @sessiondb/deno — sessiondb on Deno: `openStore(path, options?)` over the built-in
 * node:sqlite (default) or @db/sqlite (pass `{ driver: dbSqliteDriver(Database) }`), the Store
 * and every error class, so one import is enough. Each export is listed in the README;
 * test/exports.test.ts pins the list.
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
import type { RuntimeRepairOptions, RuntimeStoreOptions, SessionDbRuntime } from "@sessiondb/core";
import { defineRuntime } from "@sessiondb/core/driver";
import { denoHost } from "./host.js";
import { nodeSqliteDriver } from "./node-sqlite.js";

/** `openStore` options: core's, plus `driver` ("node:sqlite" or a SqliteDriver such as
 * `dbSqliteDriver(Database)`). */
export type DenoStoreOptions = RuntimeStoreOptions<"node:sqlite">;
/** `repairStore` options: core's, plus `driver`. */
export type DenoRepairOptions = RuntimeRepairOptions<"node:sqlite">;

/** Deno as a sessiondb runtime. @db/sqlite has no name here: it needs the caller's `Database`
 * class, so it is passed as a driver object. */
export const runtime: SessionDbRuntime<"node:sqlite"> = defineRuntime({
  name: "deno",
  // Deno's own version, without a permission; read from `Deno` rather than `node:process`, whose
  // first use loads Deno's Node compatibility layer (~8 ms to a process that needs none of it).
  version: (globalThis as { Deno?: { version?: { deno?: string } } }).Deno?.version?.deno ?? "unknown",
  host: denoHost,
  drivers: { "node:sqlite": nodeSqliteDriver },
  installHint:
    "node:sqlite is built into Deno ≥ 2.2: upgrade Deno, or pass { driver: dbSqliteDriver(Database) }.",
});

// One export each, typed (JSR documents the API from explicit types).
export const openStore: SessionDbRuntime<"node:sqlite">["openStore"] = runtime.openStore;
export const repairStore: SessionDbRuntime<"node:sqlite">["repairStore"] = runtime.repairStore;
export const resolveDriver: SessionDbRuntime<"node:sqlite">["resolveDriver"] = runtime.resolveDriver;
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
export {
  type DbSqliteDatabase,
  type DbSqliteDatabaseClass,
  type DbSqliteOpenOptions,
  type DbSqliteStatement,
  dbSqliteDriver,
} from "./db-sqlite.js";
export { nodeSqliteDriver };
