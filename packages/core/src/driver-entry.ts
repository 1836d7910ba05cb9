/**
 * @sessiondb/core/driver — for driver and adapter authors: the driver seam (`defineDriver` wraps
 * a binding so every error it throws is a normalized `SqliteError`), the helpers a binding's
 * `classify` uses to find SQLite's result code, the driver for bindings with node:sqlite's API
 * (Node's and Deno's `node:sqlite`), the runtime contract (`defineRuntime`) an adapter's
 * index.ts is built from, and the shared file-system host loading `node:fs` on first use
 * (`lazyNodeFsHost`; `@sessiondb/core/host` has the one over a static import). Store users need
 * none of it.
 */
export { connectWithOpenPatience } from "./async-store.js";
export { displayUrl } from "./display-url.js";
export {
  type BackupPageProgress,
  type BackupStepOptions,
  defineDriver,
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
  isBlankSql,
  type NodeSqliteApiBackup,
  type NodeSqliteApiDatabase,
  type NodeSqliteApiDatabaseClass,
  type NodeSqliteApiDriverOptions,
  type NodeSqliteApiOpenOptions,
  type NodeSqliteApiStatement,
  nodeSqliteApiDriver,
} from "./drivers/node-sqlite-api.js";
export type {
  AdmissionHolder,
  AdmissionLease,
  AsyncAdmission,
  AsyncAdmissionAnswer,
  AsyncExecutor,
  AsyncStatements,
  AsyncTransactionOptions,
  ExecuteResult,
} from "./executor.js";
export { lazyNodeFsHost } from "./host/fs-host.js";
export { lockFileAdmission } from "./locks/admission.js";
export { defineRuntime, type RuntimeDefinition } from "./runtime.js";
export { resultCodeFromMessage, resultCodeFromName, resultCodeFromNumber } from "./sqlite-codes.js";
