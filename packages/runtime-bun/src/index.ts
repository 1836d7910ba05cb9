/**
 * @sessiondb/bun — sessiondb on Bun: `openStore(path, options?)` over the built-in bun:sqlite,
 * the Store and every error class, so one import is enough. Each export is listed in the
 * README; test/exports.test.ts pins the list.
 *
 * @example
 * import { openStore } from "@sessiondb/bun";
 * const store = openStore("state.db");
 * store.createSession({ id: "s1", source: "cli" });
 * store.appendMessage("s1", { role: "user", content: "hello" });
 * store.close();
 */
import type { RuntimeRepairOptions, RuntimeStoreOptions, SessionDbRuntime } from "@sessiondb/core";
import { defineRuntime } from "@sessiondb/core/driver";
import { nodeFsHost } from "@sessiondb/core/host";
import { bunSqliteDriver } from "./bun-sqlite.js";

/** `openStore` options: core's, plus `driver` ("bun:sqlite" or a SqliteDriver). */
export type BunStoreOptions = RuntimeStoreOptions<"bun:sqlite">;
/** `repairStore` options: core's, plus `driver`. */
export type BunRepairOptions = RuntimeRepairOptions<"bun:sqlite">;

/** Bun as a sessiondb runtime: one driver, the built-in bun:sqlite. */
export const runtime: SessionDbRuntime<"bun:sqlite"> = defineRuntime({
  name: "bun",
  version: Bun.version,
  host: nodeFsHost,
  drivers: { "bun:sqlite": bunSqliteDriver },
  installHint: "bun:sqlite is built into Bun ≥ 1.1: upgrade Bun.",
});

// One export each, typed (JSR documents the API from explicit types).
export const openStore: SessionDbRuntime<"bun:sqlite">["openStore"] = runtime.openStore;
export const repairStore: SessionDbRuntime<"bun:sqlite">["repairStore"] = runtime.repairStore;
export const resolveDriver: SessionDbRuntime<"bun:sqlite">["resolveDriver"] = runtime.resolveDriver;
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
export { bunSqliteDriver };
