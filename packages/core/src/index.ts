/**
 * @sessiondb/core — the runtime-agnostic core: driver seam, schema, FTS, locks, journal policy,
 * the Store and its errors. Adapters (@sessiondb/node, @sessiondb/bun, @sessiondb/deno) wrap
 * `createStore` with their runtime's driver; the node:sqlite-API driver that Node and Deno share
 * lives here, taking the runtime's `DatabaseSync` class as a parameter.
 */
export type { BackupOptions, BackupProgress, BackupResult } from "./backup/backup.js";
export type { BackupMethod } from "./backup/copy.js";
export * from "./constants.js";
export {
  type BackupPageProgress,
  type BackupStepOptions,
  defineDriver,
  normalizeError,
  type OpenFlags,
  type RawDriver,
  type Row,
  type RunResult,
  type SqliteConnection,
  type SqliteDriver,
  type SqliteStatement,
  type SqlValue,
} from "./driver.js";
export {
  classifyNodeSqliteError,
  isBlankSql,
  type NodeSqliteApiBackup,
  type NodeSqliteApiDatabase,
  type NodeSqliteApiDatabaseClass,
  type NodeSqliteApiDriverOptions,
  type NodeSqliteApiOpenOptions,
  type NodeSqliteApiStatement,
  nodeSqliteApiDriver,
} from "./drivers/node-sqlite-api.js";
export * from "./errors.js";
export type {
  FtsStatus,
  RebuildResult,
  SearchHit,
  SearchOptions,
  SearchResult,
  SearchRoute,
} from "./fts/index.js";
export { FTS_DETACHED_PROBLEM } from "./fts/integrity.js";
export type { Host, PathInfo } from "./host/host.js";
export {
  isWalResetVulnerable,
  type JournalMode,
  type JournalPolicyOptions,
  walSupported,
} from "./journal.js";
export { type AdmissionHolder, admissionLockPath, readAdmissionHolder } from "./locks/admission.js";
export { repairStore } from "./repair/repair.js";
export type {
  AdapterRepairOptions,
  RepairAttempt,
  RepairLoss,
  RepairOptions,
  RepairReport,
  RepairStrategy,
  TableCounts,
} from "./repair/types.js";
export { resultCodeFromMessage, resultCodeFromName, resultCodeFromNumber } from "./sqlite-codes.js";
export { type AdapterOptions, adapterOptions } from "./store/options.js";
export type * from "./store/types.js";
export { ROLES } from "./store/types.js";
export { createStore, Store } from "./store.js";
