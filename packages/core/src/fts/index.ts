/**
 * Full-text search (spec §5): the projection, search, rebuild, backfill and fail-open, as
 * operations the Store's table runs; nothing here imports the Store.
 */
export type { BackfillProgress } from "./backfill-loop.js";
export type { InstallOutcome } from "./install.js";
export { ftsDropDdl, ftsFingerprintText } from "./projection.js";
export type { RebuildResult } from "./recovery.js";
export type { SearchRoute } from "./route.js";
export type { SearchHit, SearchOptions, SearchResult, SearchSort } from "./search-options.js";
export { ftsNeedsRepair } from "./state.js";
export type { FtsStatus } from "./status.js";
