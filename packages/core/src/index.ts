/**
 * @sessiondb/core — the public API every adapter builds on: the Store, `createStore` (a Store over
 * any driver), `repairStore`, the errors and the public types. Runtime adapters
 * (@sessiondb/node, @sessiondb/bun, @sessiondb/deno) give you `openStore(path)`; driver and
 * adapter authors find the driver seam and the runtime contract in `@sessiondb/core/driver`.
 *
 * Every name here is a decision (src/exports.test.ts pins the list): tuning constants and
 * internal helpers stay inside the package.
 */
export { AsyncStore, type AsyncStoreOptions, createAsyncStore } from "./async-store.js";
export type { BackupOptions, BackupProgress, BackupResult } from "./backup/backup.js";
export type { BackupMethod } from "./backup/copy.js";
export { companionsOf, type FileReader, type SqliteFile, sqliteFileOf } from "./backup/sqlite-files.js";
export type { OpenFlags, SqliteDriver } from "./driver.js";
export {
  BackupDestinationError,
  type BackupRefusal,
  DriverUnavailableError,
  ERROR_CODES,
  InvalidInputError,
  SchemaOutdatedError,
  SchemaTooNewError,
  SessionDbError,
  type SessionDbErrorCode,
  SessionNotFoundError,
  SQLITE_RESULT_CODES,
  SqliteError,
  type SqliteResultCode,
  StoreBusyError,
  StoreClosedError,
  StoreCorruptError,
  StoreFullError,
  StoreInUseError,
  StoreOpenError,
  StoreReadOnlyError,
  UnsafeSqliteError,
} from "./errors.js";
export type { AdmissionHolder } from "./executor.js";
export type {
  BackfillProgress,
  FtsStatus,
  RebuildResult,
  SearchHit,
  SearchOptions,
  SearchResult,
  SearchRoute,
  SearchSort,
} from "./fts/index.js";
export type { Host, PathInfo } from "./host/host.js";
export {
  isWalResetVulnerable,
  type JournalMode,
  type JournalPolicyOptions,
  type SqliteJournalMode,
} from "./journal.js";
export { LIMITS } from "./limits.js";
export { admissionLockPath, readAdmissionHolder } from "./locks/admission.js";
export type {
  DeleteSessionsOptions,
  DeleteSessionsProgress,
  DeleteSessionsResult,
} from "./maintenance/delete-sessions.js";
export type {
  ImportFailure,
  ImportSessionInput,
  ImportSessionsOptions,
  ImportSessionsProgress,
  ImportSessionsResult,
} from "./maintenance/import-sessions.js";
export type { VacuumOptions, VacuumProgress, VacuumResult } from "./maintenance/vacuum.js";
export {
  type CreateSessionInput,
  type Durability,
  type GetMessagesOptions,
  type IntegrityProblem,
  type IntegrityReport,
  type Json,
  type ListSessionsOptions,
  type Message,
  type MessageInput,
  type MessagePatch,
  type Original,
  ROLES,
  type Role,
  type Session,
  type SessionSummary,
  type StoreOptions,
  type StructuredContent,
  type UpdateSessionInput,
  type UsageInput,
  type UsageRow,
} from "./model/types.js";
export type {
  AdapterRepairOptions,
  RepairAttempt,
  RepairLoss,
  RepairOptions,
  RepairReport,
  RepairStrategy,
  TableCounts,
} from "./repair/types.js";
export { repairStore } from "./repair-on-demand.js";
export type {
  RuntimeName,
  RuntimeRepairOptions,
  RuntimeStoreOptions,
  SessionDbRuntime,
} from "./runtime.js";
export type { StoreCounts, StoreStats } from "./store/stats.js";
export { createStore, Store } from "./store.js";
