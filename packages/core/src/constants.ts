/**
 * Constants that are part of the on-disk contract or of the cross-process behaviour, in one
 * place. Changing any of the first group changes the schema fingerprint.
 */

/** Tool rows index only their first 8192 characters: tool output is huge and mostly noise to
 * search, and a bounded prefix keeps the index (and rebuilds) proportional to prose, not logs.
 * Tool-role searches scan full content instead. Characters, not bytes (SQL `substr`) — except
 * for a row holding a NUL near its start, cut at 8192 bytes (fts/projection.ts). */
export const TOOL_CONTENT_PREFIX_CHARS = 8192;

/** Bumped whenever the FTS objects (views, tables, triggers) change shape. */
export const FTS_LAYOUT_VERSION = 2;

/** Bumped with every version-gated data migration; a store newer than this refuses writes. */
export const SCHEMA_VERSION = 1;

/** One backfill step on its own (`ftsBackfillStep`, `maintenanceTick`), in message ids: ~0.45 s
 * of write lock on the bench corpus. */
export const DEFAULT_BACKFILL_CHUNK_IDS = 5000;

/** The largest step of a paced backfill or rebuild, in message ids; steps are bounded by time
 * first (PACE_QUIET_MAX_HOLD_MS: ~13 000 ids of the bench corpus). */
export const BACKFILL_MAX_CHUNK_IDS = 100_000;

/** Rows near the high-water mark the boundary sweep re-checks for a missing docsize row. */
export const BACKFILL_BOUNDARY_SWEEP_IDS = 1000;

/** Default wait for the FTS admission lock: a full rebuild of a large store takes minutes. */
export const ADMISSION_TIMEOUT_MS = 120_000;

/** Poll interval while waiting for the admission lock. */
export const ADMISSION_POLL_MS = 100;

/** Write patience: how long a write keeps retrying on BUSY/LOCKED before StoreBusyError. */
export const WRITE_PATIENCE_MS = 20_000;

/** Transcript appends wait longer: losing a message is worse than a slow append. */
export const APPEND_PATIENCE_MS = 60_000;

/** Open-time patience for the one-time init (DDL, migrations) racing sibling openers. */
export const OPEN_PATIENCE_MS = 20_000;

/** SQLite's own busy handler per statement; core's patience loop retries around it, so this
 * stays short to keep the loop (and its jitter) in charge. */
export const STATEMENT_BUSY_TIMEOUT_MS = 100;

/** Jitter while retrying a write: short sleeps for the first 2 s, then longer ones. */
export const WRITE_JITTER_EARLY_MS: readonly [number, number] = [20, 150];
export const WRITE_JITTER_EARLY_WINDOW_MS = 2_000;
export const WRITE_JITTER_LATE_MS: readonly [number, number] = [250, 1000];

/** Jitter while retrying the open-time init. */
export const OPEN_JITTER_MS: readonly [number, number] = [250, 1000];

/** WAL size the store trims back to after checkpoints. */
export const JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/** A write outside a transaction checks that the store's file is still the one it opened (one
 * `stat`) unless a check found it in place less than this many ms ago. The stat cost ~20 µs per
 * durable single append on ext4 (~7 µs itself, the rest the code after it running colder), ~6 %
 * of the append; a write that starts within this long of the file being deleted or replaced can
 * still go to the old file, as one already past its check always could. */
export const FILE_RECHECK_AFTER_MS = 5;

/** A PASSIVE checkpoint every this many writes (never TRUNCATE: a short-lived process
 * truncating under a live writer corrupts large stores). */
export const CHECKPOINT_EVERY_WRITES = 1000;

/** Deferred FTS recovery backoff: 60 s doubling to 1 h; the doubled interval never below 1 s. */
export const RECOVERY_BACKOFF_BASE_MS = 60_000;
export const RECOVERY_BACKOFF_MAX_MS = 3_600_000;
export const RECOVERY_BACKOFF_FLOOR_MS = 1_000;

/** Input limits: generous for agent transcripts, small enough to refuse runaway input. */
export const MAX_SESSION_ID_CHARS = 256;
export const MAX_CONTENT_CHARS = 16 * 1024 * 1024;
/** Deepest nesting of arrays and objects in a JSON value (content parts, metadata, tool calls). */
export const MAX_JSON_LEVELS = 64;
export const MAX_SEARCH_QUERY_CHARS = 1000;
export const MAX_SEARCH_LIMIT = 1000;
/** Longest session source ("cli", "gateway", …); a longer search filter value could never match. */
export const MAX_SOURCE_CHARS = 200;
/** Distinct values a search's `roles` or `sources` filter may list: each one is a bound SQL
 * parameter, and SQLite's variable limit must never surface as the caller's error. */
export const MAX_SEARCH_FILTER_VALUES = 100;
/** Longest store path accepted (the longest path Windows allows; Linux's PATH_MAX is shorter). */
export const MAX_PATH_CHARS = 32_767;
/** Longest wait any option may ask for (patience budgets, admission timeouts, recovery
 * backoff): a day. A larger value is a unit mistake, and an unbounded one could block forever. */
export const MAX_WAIT_MS = 86_400_000;
/** Largest timestamp, in epoch seconds, either way from 1970 (about the year 5138). A larger one
 * is almost always milliseconds passed as seconds, and every binding can store it exactly
 * (@db/sqlite binds integral numbers as 64-bit integers and refuses those past 2^63). */
export const MAX_EPOCH_SECONDS = 1e11;
/** Largest cost, in US dollars, one call may record and a total may reach: far past any real
 * bill, and an integral value every binding can bind (see MAX_EPOCH_SECONDS). */
export const MAX_COST_USD = 1e15;

/** Store file permissions: transcripts are private. */
export const STORE_FILE_MODE = 0o600;

/** Paced maintenance (backfill, vacuum): a BEGIN IMMEDIATE that took longer than this waited for
 * another writer. */
export const PACE_CONTENTION_WAIT_MS = 5;
/** While others write, a step is sized to hold the write lock about this long, so a live
 * writer's append waits at most about one such step (the p99 goal is 50 ms) … */
export const PACE_TARGET_HOLD_MS = 15;
/** … and the job pauses twice as long as it held the lock, at least PACE_MIN_PAUSE_MS (a
 * blocked writer's busy handler sleeps in steps of up to 25 ms and must wake inside the gap) and
 * at most PACE_MAX_PAUSE_MS. */
export const PACE_MIN_PAUSE_MS = 30;
export const PACE_MAX_PAUSE_MS = 250;
/** With no one else writing, the gap between two steps is this share of the step's hold time,
 * at least 1 ms and at most PACE_MIN_PAUSE_MS: a writer that starts waiting during a full-size
 * step (~0.45 s) retries every few ms to 25 ms (SQLite's busy handler) and lands in a gap of
 * ~28 ms, where a gap of a few µs would let it wait out step after step. Costs ~6 % of a job's
 * speed when nobody writes. */
export const PACE_QUIET_PAUSE_SHARE = 1 / 16;
/** With no one else writing, chunks double until a step holds the lock about this long: long
 * enough that a commit's fsync and WAL checkpoint are a small share of the job (at 100k messages
 * 5000-id steps of ~0.45 s reached 0.62–0.67 of a raw rebuild's speed on a loaded machine, 20 000-id
 * steps 0.79), short enough that a writer that starts waiting mid-step waits about this long at
 * most. Jobs cap it further with their own largest chunk (`chunkRows`). */
export const PACE_QUIET_MAX_HOLD_MS = 1000;
