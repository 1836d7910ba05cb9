/**
 * `@sessiondb/core/testing` — NOT covered by semver: the few internals the conformance suite
 * (`@sessiondb/conformance`) needs to check the store against its own tuning and SQL. Each can
 * change in any release, together with the suite of the same version (which pins this package's
 * exact version). Nothing else should import this entry.
 *
 * - `SCHEMA_VERSION`: the schema version a store records; the open tests make a store "from the
 *   future" with one more and expect `SchemaTooNewError`.
 * - `STORE_FILE_MODE`: the mode (0600) the files tests expect of every file the store creates.
 * - `CHECKPOINT_EVERY_WRITES`: how many writes a disk-full test makes to reach a checkpoint.
 * - `FILE_RECHECK_AFTER_MS`: how long the files tests wait before the store looks at its file
 *   again (a file replaced under an open store).
 * - `TOOL_CONTENT_PREFIX_CHARS`: how much of a tool row the index covers; the FTS tests search
 *   past it.
 * - `BY_ROLE`: the SQL of `stats()`'s count by role, whose query plan the stats tests explain.
 * - `probeReadsTextWhole`: whether a binding reads TEXT past a NUL; the open tests compare it
 *   with what the store decided.
 * - `lockExclusive`: the EXCLUSIVE lock repair takes; the repair tests hold it from a test.
 * - `StoreOperations`, `AsyncMethods`, `BackfillFtsOptions`: the harness types that make one
 *   `ConformanceStore` of the sync and async Stores.
 */

export { probeReadsTextWhole } from "./binding-facts.js";
export {
  CHECKPOINT_EVERY_WRITES,
  FILE_RECHECK_AFTER_MS,
  SCHEMA_VERSION,
  STORE_FILE_MODE,
  TOOL_CONTENT_PREFIX_CHARS,
} from "./constants.js";
export { lockExclusive } from "./locks/exclusive.js";
export type { AsyncMethods, BackfillFtsOptions, StoreOperations } from "./store/operations.js";
export { BY_ROLE } from "./store/stats.js";
