/**
 * Search SQL builders (pure): index MATCH queries, LIKE scans (by instr) and the LIKE snippet window. Every
 * user value is a positional parameter; only names from the projection and fixed constants are
 * spliced into the text.
 */
import type { SqlValue } from "../driver.js";
import { nulSafeColumn } from "../model/rows.js";
import {
  LIKE_WINDOW_BEFORE_BYTES,
  LIKE_WINDOW_BYTES,
  SNIPPET_CLOSE,
  SNIPPET_ELLIPSIS,
  SNIPPET_OPEN,
  SNIPPET_TOKENS,
} from "./constants.js";
import type { FtsIndexDef } from "./projection.js";
import type { ParsedQuery } from "./query.js";

/** Result order: FTS5 bm25 rank (LIKE has none and falls back to newest), or by timestamp. */
export type SearchSort = "rank" | "newest" | "oldest";

/** Row filters shared by every route. Empty lists mean "no filter". */
export interface SearchFilters {
  roles?: readonly string[];
  sources?: readonly string[];
  sessionId?: string;
  /** Epoch seconds, inclusive. */
  since?: number;
  /** Epoch seconds, exclusive. */
  until?: number;
  /** A cursor walk's bounds (not a user filter): ids up to `maxId`, and in time order only
   * rows after `after` (the previous page's last hit). */
  walk?: { maxId: number; after?: { timestamp: number; id: number } };
}

/** A statement and its parameters. */
export interface Sql {
  sql: string;
  params: SqlValue[];
}

/** One page of results. */
export interface Page {
  limit: number;
  offset: number;
}

/** A page's `LIMIT n OFFSET ?`: the limit is part of the text (an integer normalizeSearch
 * checked), the offset bound. An FTS5 query with a bound LIMIT cost ~30 µs more per run than
 * the same with the number written in, whatever it finds (measured with better-sqlite3 and
 * SQLite 3.53: 55 against 25 µs for a word in no row) — a search's whole first page of a
 * rare word. Its text then varies with the limit too, as varying statements may. */
function pageSql(page: Page): string {
  return `LIMIT ${limitSql(page.limit)} OFFSET ?`;
}

function limitSql(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`not a limit: ${limit}`);
  return String(limit);
}

/** Columns every hit query returns (the snippet column comes on top). */
const HIT_COLUMNS = `m.id AS id, m.session_id AS session_id, m.role AS role, m.timestamp AS timestamp, ${nulSafeColumn("m.tool_name", "tool_name")}`;
/** Columns the LIKE route scans: the same ones the word index holds, but whole. */
export const LIKE_COLUMNS = ["content", "tool_name", "tool_calls"] as const;

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const list = (values: readonly unknown[]) => values.map(() => "?").join(", ");

/** An id range of rows a LIKE top-up covers. */
export interface IdWindow {
  after: number;
  upTo: number;
}

function filterSql(filters: SearchFilters, sort: SearchSort, window?: IdWindow, toolless = false): Sql {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (toolless) where.push("m.role <> 'tool'");
  if (filters.roles?.length) {
    where.push(`m.role IN (${list(filters.roles)})`);
    params.push(...filters.roles);
  }
  if (filters.sources?.length) {
    where.push(`m.session_id IN (SELECT id FROM sessions WHERE source IN (${list(filters.sources)}))`);
    params.push(...filters.sources);
  }
  if (filters.sessionId !== undefined) {
    where.push("m.session_id = ?");
    params.push(filters.sessionId);
  }
  if (filters.since !== undefined) {
    where.push("m.timestamp >= ?");
    params.push(filters.since);
  }
  if (filters.until !== undefined) {
    where.push("m.timestamp < ?");
    params.push(filters.until);
  }
  if (window) {
    where.push("m.id > ? AND m.id <= ?");
    params.push(window.after, window.upTo);
  }
  const walk = filters.walk;
  if (walk) {
    where.push("m.id <= ?");
    params.push(walk.maxId);
    // Rank order has no keyset (see cursor.ts); "rank" on LIKE is newest first, paged by offset.
    if (walk.after && sort !== "rank") {
      const op = sort === "oldest" ? ">" : "<";
      where.push(`(m.timestamp ${op} ? OR (m.timestamp = ? AND m.id ${op} ?))`);
      params.push(walk.after.timestamp, walk.after.timestamp, walk.after.id);
    }
  }
  return { sql: where.map((w) => ` AND ${w}`).join(""), params };
}

/**
 * Rank order is FTS5's rank alone: only then does FTS5 sort the matches itself and SQLite stop
 * after the page, evaluating the exact test and snippet() on the rows it returns. A tiebreak
 * column makes SQLite sort every match in a temporary B-tree after computing those for each
 * (2–3× slower for a common trigram). FTS5 visits matches in rowid order and sorts them
 * deterministically, so equal ranks come in id order and pages stay stable.
 */
function orderBy(sort: SearchSort, rankColumn: string | undefined): string {
  if (sort === "oldest") return "m.timestamp ASC, m.id ASC";
  if (sort === "rank" && rankColumn) return rankColumn;
  return "m.timestamp DESC, m.id DESC";
}

/** What an index query adds to MATCH. */
export interface IndexSearchOptions {
  /** An exact test every index candidate must pass (the trigram route's substring check). */
  exact?: Sql;
  /** Rows whose content, tool_name and tool_calls hold at most this many characters get an
   * FTS5 snippet; longer rows (and every row when undefined) get a NULL snippet column. */
  snippetMaxChars?: number;
  /** Rank order: start after this (rank, id), sought on the index cursor (see cursor.ts). */
  rankAfter?: { rank: number; id: number };
  /** Rank order: return each hit's rank (`rank`). Not free: FTS5 ranks the matches in an inner
   * statement of its own, and the rank column is bm25 computed again on this statement's
   * cursor, which first gathers bm25's statistics again — one more pass over every match of
   * each phrase (a third of a phrase search's time at 100k). A seek has it computed anyway. */
  withRank?: boolean;
}

const indexedLength = `ifnull(length(m.content), 0) + ifnull(length(m.tool_name), 0) + ifnull(length(m.tool_calls), 0)`;

/** FTS5's snippet() over every column of `t`, with the store's markers. */
const snippetCall = (t: string) =>
  `snippet(${t}, -1, ${literal(SNIPPET_OPEN)}, ${literal(SNIPPET_CLOSE)}, ${literal(SNIPPET_ELLIPSIS)}, ${SNIPPET_TOKENS})`;

/** Whether FTS5's snippet() makes a row's snippet: the row has at most `?` indexed characters
 * and no NUL in its text. snippet() drops text that follows a NUL ("alpha \0 bravo charlie"
 * gave "alpha «charlie»", on every SQLite here), so such a row gets the window the LIKE route
 * computes instead. Parameter: that length. */
const snippetFits = `${indexedLength} <= ? AND instr(ifnull(m.content, ''), char(0)) = 0 AND instr(ifnull(m.tool_name, ''), char(0)) = 0`;

/** The snippet column: FTS5's snippet() where it fits (above), else NULL. */
const snippetSql = (t: string) => `CASE WHEN ${snippetFits} THEN ${snippetCall(t)} END`;

/** MATCH, the walk's bounds, the rank seek, the exact test and the filters, as one condition. */
function indexWhere(
  def: FtsIndexDef,
  match: string,
  filters: SearchFilters,
  sort: SearchSort,
  options: IndexSearchOptions,
): Sql {
  const t = def.table;
  const exact = options.exact ? ` AND ${options.exact.sql}` : "";
  const filter = filterSql(filters, sort);
  // A walk's id bound as a rowid range FTS5 applies while it reads its doclists; the rank
  // seek is tested on the index cursor, before the row is read.
  const bound = filters.walk ? ` AND ${t}.rowid <= ?` : "";
  const after = options.rankAfter;
  const seek = after && sort === "rank" ? ` AND (${t}.rank > ? OR (${t}.rank = ? AND ${t}.rowid > ?))` : "";
  return {
    sql: `${t} MATCH ?${bound}${seek}${exact}${filter.sql}`,
    params: [
      match,
      ...(filters.walk ? [filters.walk.maxId] : []),
      ...(seek && after ? [after.rank, after.rank, after.id] : []),
      ...(options.exact?.params ?? []),
      ...filter.params,
    ],
  };
}

/**
 * FTS5 MATCH over `def`, joined to messages, ranked by bm25 (FTS5's default `rank`). snippet()
 * compares every match in a row with every other, so it only runs on rows short enough to
 * bound that (options.snippetMaxChars); the caller computes the other snippets like LIKE's.
 */
export function indexSearchSql(
  def: FtsIndexDef,
  match: string,
  filters: SearchFilters,
  sort: SearchSort,
  page: Page,
  options: IndexSearchOptions = {},
): Sql {
  const t = def.table;
  const where = indexWhere(def, match, filters, sort, options);
  const rank = sort === "rank" && options.withRank ? `, ${t}.rank AS rank` : "";
  if (options.snippetMaxChars === undefined) {
    return {
      sql: `SELECT ${HIT_COLUMNS}${rank}, NULL AS snippet FROM ${t} JOIN messages m ON m.id = ${t}.rowid WHERE ${where.sql} ORDER BY ${orderBy(sort, `${t}.rank`)} ${pageSql(page)}`,
      params: [...where.params, page.offset],
    };
  }
  if (sort === "rank") {
    // FTS5 returns matches in rank order and SQLite stops after the page: snippet() runs on
    // the page's rows only.
    return {
      sql: `SELECT ${HIT_COLUMNS}${rank}, ${snippetSql(t)} AS snippet FROM ${t} JOIN messages m ON m.id = ${t}.rowid WHERE ${where.sql} ORDER BY ${t}.rank ${pageSql(page)}`,
      params: [options.snippetMaxChars, ...where.params, page.offset],
    };
  }
  // Time order sorts every match in a temporary B-tree, and SQLite computes a sorted row's
  // columns before sorting it: the page is chosen first (ids and keys only), then each of its
  // rows is found again in the index (MATCH with rowid =) for its snippet. CROSS JOIN fixes that
  // order: left to itself the planner rescans every match and joins the page to it.
  return {
    sql: `WITH page AS (SELECT m.id AS id FROM ${t} JOIN messages m ON m.id = ${t}.rowid WHERE ${where.sql} ORDER BY ${orderBy(sort, undefined)} ${pageSql(page)})
      SELECT ${HIT_COLUMNS}, ${snippetSql(t)} AS snippet FROM page CROSS JOIN ${t} CROSS JOIN messages m
      WHERE ${t}.rowid = page.id AND m.id = page.id AND ${t} MATCH ? ORDER BY ${orderBy(sort, undefined)}`,
    params: [...where.params, page.offset, options.snippetMaxChars, match],
  };
}

/**
 * A rank walk's whole ranking (ranked-walks.ts): the ids (`id`) and ranks (`rank`) of the
 * search's first `limit` hits in rank order, nothing else. Without a filter or an exact test
 * the index alone answers (its rows are the messages', kept in step by the triggers), and no
 * row is read at all; otherwise each match's row is read for the test, as a page does.
 */
export function rankedIdsSql(
  def: FtsIndexDef,
  match: string,
  filters: SearchFilters,
  limit: number,
  exact?: Sql,
): Sql {
  const t = def.table;
  const { walk, ...rowFilters } = filters;
  if (exact === undefined && filterSql(rowFilters, "rank").sql === "") {
    const bound = walk ? ` AND ${t}.rowid <= ?` : "";
    return {
      sql: `SELECT ${t}.rowid AS id, ${t}.rank AS rank FROM ${t} WHERE ${t} MATCH ?${bound} ORDER BY ${t}.rank LIMIT ${limitSql(limit)}`,
      params: [match, ...(walk ? [walk.maxId] : [])],
    };
  }
  const where = indexWhere(def, match, filters, "rank", { exact });
  return {
    sql: `SELECT m.id AS id, ${t}.rank AS rank FROM ${t} JOIN messages m ON m.id = ${t}.rowid WHERE ${where.sql} ORDER BY ${t}.rank LIMIT ${limitSql(limit)}`,
    params: [...where.params],
  };
}

/**
 * The rows of a page whose ids a ranked list chose, in that order, each tested again against the
 * filters and the exact test, so a row that no longer matches is missing rather than returned
 * (the caller then walks on without the list). With `snippetMaxChars` (word index), a row short
 * enough gets its FTS5 snippet from one index lookup by rowid — MATCH again, so `short` rows
 * without a snippet did not match — and longer rows read no index at all.
 */
export function rankedPageSql(
  def: FtsIndexDef,
  match: string,
  filters: SearchFilters,
  ids: readonly number[],
  options: Pick<IndexSearchOptions, "exact" | "snippetMaxChars">,
): Sql {
  const t = def.table;
  const { walk: _, ...rowFilters } = filters;
  const filter = filterSql(rowFilters, "rank");
  const exact = options.exact ? ` AND ${options.exact.sql}` : "";
  const max = options.snippetMaxChars;
  const snippet =
    max === undefined
      ? "NULL AS snippet, 0 AS short"
      : `CASE WHEN ${snippetFits} THEN (SELECT ${snippetCall(t)} FROM ${t} WHERE ${t} MATCH ? AND ${t}.rowid = m.id) END AS snippet, ${snippetFits} AS short`;
  return {
    sql: `SELECT ${HIT_COLUMNS}, ${snippet} FROM json_each(?) AS p CROSS JOIN messages m WHERE m.id = p.value${exact}${filter.sql} ORDER BY p.key`,
    params: [
      ...(max === undefined ? [] : [max, match, max]),
      JSON.stringify(ids),
      ...(options.exact?.params ?? []),
      ...filter.params,
    ],
  };
}

/** A letter with an upper and a lower case: only then can folding change a match. Built on the
 * first search, not at load (its Unicode classes are costly to build: fts/query.ts). */
let cased: RegExp | undefined;

/** Whether finding `term` needs both sides folded: SQLite's lower() changes only A–Z and keeps
 * every byte where it is, so for a term without cased letters (digits, CJK, symbols) the folded
 * and the unfolded text hold it at the same positions, and the copy lower() makes is saved. */
export function foldsCase(term: string): boolean {
  cased ??= /[\p{Lu}\p{Ll}\p{Lt}]/u;
  return cased.test(term);
}

/**
 * "Some column contains the term", ASCII case-insensitively: instr() compares bytes with
 * memcmp, so it sees text after a NUL (LIKE stops there) and never backtracks (LIKE's '%term%'
 * retries the pattern at every character: ~1 s for a 1000-character near miss over a 1 MB run
 * of one character, where instr takes ~15 ms). Both sides go through SQLite's lower(), so they
 * fold alike whatever lower() does; a term without cased letters (digits, CJK, symbols) skips
 * it, sparing a copy of every row a scan reads. Parameter: the term.
 */
function containsSql(columns: readonly string[], term: string): string {
  const test = foldsCase(term)
    ? (c: string) => `instr(lower(ifnull(m.${c}, '')), lower(?)) > 0`
    : (c: string) => `instr(ifnull(m.${c}, ''), ?) > 0`;
  return `(${columns.map(test).join(" OR ")})`;
}

/**
 * The query's OR-of-AND-groups as an exact test over `columns`: the LIKE route's whole
 * condition, and the check that turns trigram candidates into hits (so both routes answer a
 * substring query alike).
 */
export function termsSql(query: ParsedQuery, columns: readonly string[]): Sql {
  const params: SqlValue[] = [];
  const groups = query.groups.map((group) => {
    const terms = group.map((term) => {
      params.push(...columns.map(() => term.text));
      return `${term.negated ? "NOT " : ""}${containsSql(columns, term.text)}`;
    });
    return `(${terms.join(" AND ")})`;
  });
  return { sql: `(${groups.join(" OR ")})`, params };
}

/**
 * Scan of the canonical rows (ASCII case-insensitive substring match over full content),
 * mirroring the query's OR-of-AND-groups; `window` restricts it to an id range, `toolless` to
 * rows that are not tool output.
 */
export function likeSearchSql(
  query: ParsedQuery,
  filters: SearchFilters,
  sort: SearchSort,
  page: Page,
  window?: IdWindow,
  toolless = false,
): Sql {
  const terms = termsSql(query, LIKE_COLUMNS);
  const filter = filterSql(filters, sort, window, toolless);
  return {
    sql: `SELECT ${HIT_COLUMNS} FROM messages m WHERE ${terms.sql}${filter.sql} ORDER BY ${orderBy(sort, undefined)} ${pageSql(page)}`,
    params: [...terms.params, ...filter.params, page.offset],
  };
}

/**
 * The LIKE snippet windows of one column of some rows: for each row, the 1-based byte position
 * `p` where the term first occurs (as containsSql finds it; 0 when it does not), and the bytes
 * around it (`w`, from byte `start`; `n` bytes in all). Bytes, because SQLite's substr() and
 * length() stop at a NUL character; computed in SQL so a multi-megabyte tool output never
 * crosses into JavaScript. One statement for a whole page of hits, not one per hit. `fold`:
 * foldsCase of the term (without it, neither side is copied through lower()).
 * Parameters: the term, the message ids as a JSON array.
 */
export function likeWindowsSql(column: (typeof LIKE_COLUMNS)[number], fold: boolean): string {
  const start = `max(1, p - ${LIKE_WINDOW_BEFORE_BYTES})`;
  const position = fold
    ? `instr(CAST(lower(${column}) AS BLOB), CAST(lower(?) AS BLOB))`
    : `instr(CAST(${column} AS BLOB), CAST(? AS BLOB))`;
  return `SELECT id, p, ${start} AS start, substr(b, ${start}, ${LIKE_WINDOW_BYTES}) AS w, length(b) AS n FROM (SELECT id, CAST(${column} AS BLOB) AS b, ${position} AS p FROM messages WHERE id IN (SELECT value FROM json_each(?)))`;
}

/** The index's averages (row count, tokens per column) and structure (segments, write
 * counter) records: both unchanged means no write reached the index, so every rank is as it
 * was. Hex text, so the stamp reads alike on every binding. */
const stampExpr = (def: FtsIndexDef) =>
  `(SELECT hex(block) FROM ${def.table}_data WHERE id = 1) || '.' || (SELECT hex(block) FROM ${def.table}_data WHERE id = 10)`;

/** What a cursor records when a walk begins: the largest message id (`m`) and, for a rank
 * walk on an index, the index's stamp (`s`). One statement: a full first page pays one more. */
export function walkStartSql(def: FtsIndexDef | undefined): string {
  return `SELECT (SELECT max(id) FROM messages) AS m, ${def ? stampExpr(def) : "NULL"} AS s`;
}

/** The index's stamp alone (`s`), to check a rank cursor against. */
export const indexStampSql = (def: FtsIndexDef) => `SELECT ${stampExpr(def)} AS s`;

/** The probe's temporary table (TEMP: nothing reaches the store file; works read-only too). */
const PROBE = "temp.sessiondb_trigram_nul_probe";

/**
 * Whether this SQLite's trigram tokenizer reads past a NUL character: older ones (3.40 does)
 * stop at the first NUL, so text after it never reaches the trigram index. `setup` (one statement
 * each: an async engine runs statements one at a time) then `query`
 * (one row, `n` = 1 when the text after the NUL was indexed), then `teardown`.
 */
export const TRIGRAM_NUL_PROBE = {
  setup: [
    `CREATE VIRTUAL TABLE ${PROBE} USING fts5(c, tokenize='trigram')`,
    `INSERT INTO ${PROBE}(c) VALUES ('ab' || char(0) || 'cde')`,
  ],
  query: `SELECT count(*) AS n FROM ${PROBE} WHERE sessiondb_trigram_nul_probe MATCH '"cde"'`,
  teardown: `DROP TABLE ${PROBE}`,
} as const;
