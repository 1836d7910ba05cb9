/**
 * FTS-only constants and the state_meta keys the index owns. The on-disk contract constants the
 * fingerprint covers (tool prefix, layout version, chunk size) stay in ../constants.ts.
 */

/** state_meta: JSON `{ at, reason }` while the index is detached and awaiting a rebuild. */
export const META_FTS_STALE = "fts_stale";
/** state_meta: MAX(messages.id) when the running backfill was seeded; ids above it are live. */
export const META_BACKFILL_HIGH_WATER = "fts_backfill_high_water";
/** state_meta: every id at or below this is indexed by the running backfill. */
export const META_BACKFILL_PROGRESS = "fts_backfill_progress";
/** state_meta: `<sqlite version>: <error>` when this SQLite could not create the trigram index,
 * so later opens on the same SQLite do not retry (and do not count its triggers as missing). */
export const META_TRIGRAM_UNAVAILABLE = "fts_trigram_unavailable";

/** Snippet markers, the same for FTS5 `snippet()` and LIKE windows: rare in prose and code,
 * unlike `[ ]` or `*`, so a renderer can replace them safely. */
export const SNIPPET_OPEN = "«";
export const SNIPPET_CLOSE = "»";
export const SNIPPET_ELLIPSIS = "…";
/** Tokens in an FTS5 snippet (FTS5 caps it at 64). */
export const SNIPPET_TOKENS = 16;
/** LIKE snippets: characters shown before the first match, and the whole window. */
export const LIKE_SNIPPET_BEFORE_CHARS = 40;
export const LIKE_SNIPPET_CHARS = 120;
/** … cut from the value in bytes (see likeWindowsSql): a character takes at most 4 UTF-8 bytes. */
export const LIKE_WINDOW_BEFORE_BYTES = 4 * LIKE_SNIPPET_BEFORE_CHARS;
export const LIKE_WINDOW_BYTES = 4 * LIKE_SNIPPET_CHARS;

/** Default page size of a search. */
export const DEFAULT_SEARCH_LIMIT = 20;
/** Terms kept from one query: bounds the MATCH expression and the LIKE scan's predicates. */
export const MAX_SEARCH_TERMS = 32;
/** Trigram matches nothing below three characters, so shorter terms go to LIKE. */
export const TRIGRAM_MIN_CHARS = 3;
/** Trigrams of one substring term the index is asked for (their AND finds the candidates an
 * exact test then checks): a few selective ones narrow as well as all of them, and the cost no
 * longer grows with the term's length. */
export const TRIGRAMS_PER_TERM = 4;
/** Words in all the terms of a word (non-substring) query: FTS5 walks one position list per
 * phrase word, so on a row repeating one word 500 000 times (1 MB) each word costs ~2–8 ms with
 * bm25; 64 bounds a search to about half a second per such megabyte, and leaves room for a
 * pasted sentence in quotes. */
export const MAX_SEARCH_WORDS = 64;
/** FTS5's snippet() scores every match against every other match of the row (quadratic: ~90 ms
 * for 4 000 matches in 8 KB, minutes for a 1 MB run of one word). It runs only when the row's
 * indexed text times the query's phrases is at most this many characters (at most ~512 matches,
 * about 1.5 ms); longer rows get the window the LIKE route computes in SQL. */
export const FTS_SNIPPET_MAX_CHARS = 1024;

/** Ranked lists a connection keeps between the pages of rank walks (ranked-walks.ts) … */
export const RANKED_WALK_MAX_LISTS = 8;
/** … and hits over all of them (16 bytes each: 8 MB); a longer ranking keeps its first ones. */
export const RANKED_WALK_MAX_HITS = 500_000;

/** Pages of work per bounded FTS5 'merge' from maintenanceTick (~4 KB leaves: about 1 MB). */
export const FTS_MERGE_PAGES = 256;

/** optimizeFts, paced (fts/upkeep.ts): pages per 'merge' step. 1000 pages hold the lock
 * ~0.1–0.2 s on the bench corpus; while others write, steps shrink towards ~15 ms, never below
 * OPTIMIZE_MIN_CHUNK_PAGES. */
export const OPTIMIZE_START_CHUNK_PAGES = 128;
export const OPTIMIZE_MIN_CHUNK_PAGES = 16;
export const OPTIMIZE_MAX_CHUNK_PAGES = 1000;
/** FTS5's `usermerge` while optimizing (merge any level with two segments), and its default,
 * restored in the same transaction (the store never changes it otherwise). */
export const OPTIMIZE_USERMERGE = 2;
export const FTS5_DEFAULT_USERMERGE = 4;

/** Backfill pacing (maintenance/paced.ts): never a chunk below this many ids while others
 * write (a window of huge tool rows may still take longer) … */
export const BACKFILL_MIN_CHUNK_IDS = 50;
/** The first chunk is this small, and chunks double only after two quiet steps in a row, so a
 * backfill that starts next to live writers never holds the lock for a whole full-size chunk. */
export const BACKFILL_START_CHUNK_IDS = 250;
