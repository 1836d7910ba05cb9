/**
 * Search SQL builders (pure): index MATCH queries, LIKE scans and the LIKE snippet window. Every
 * user value is a positional parameter; only names from the projection and fixed constants are
 * spliced into the text.
 */
import type { SqlValue } from "../driver.js";
import {
  LIKE_SNIPPET_BEFORE_CHARS,
  LIKE_SNIPPET_CHARS,
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

/** Columns every hit query returns (the snippet column comes on top). */
const HIT_COLUMNS =
  "m.id AS id, m.session_id AS session_id, m.role AS role, m.timestamp AS timestamp, m.tool_name AS tool_name";
/** Columns the LIKE route scans: the same ones the word index holds, but whole. */
export const LIKE_COLUMNS = ["content", "tool_name", "tool_calls"] as const;

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const list = (values: readonly unknown[]) => values.map(() => "?").join(", ");

/** An id range of rows a LIKE top-up covers; `nonToolOnly` mirrors the trigram index's rows. */
export interface IdWindow {
  after: number;
  upTo: number;
  nonToolOnly?: boolean;
}

function filterSql(filters: SearchFilters, window?: IdWindow): Sql {
  const where: string[] = [];
  const params: SqlValue[] = [];
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
    if (window.nonToolOnly) where.push("m.role <> 'tool'");
  }
  return { sql: where.map((w) => ` AND ${w}`).join(""), params };
}

function orderBy(sort: SearchSort, rankColumn: string | undefined): string {
  if (sort === "oldest") return "m.timestamp ASC, m.id ASC";
  if (sort === "rank" && rankColumn) return `${rankColumn}, m.id ASC`;
  return "m.timestamp DESC, m.id DESC";
}

/** FTS5 MATCH over `def`, joined to messages, ranked by bm25 (FTS5's default `rank`), with snippets. */
export function indexSearchSql(
  def: FtsIndexDef,
  match: string,
  filters: SearchFilters,
  sort: SearchSort,
  page: Page,
): Sql {
  const t = def.table;
  const snippet = `snippet(${t}, -1, ${literal(SNIPPET_OPEN)}, ${literal(SNIPPET_CLOSE)}, ${literal(SNIPPET_ELLIPSIS)}, ${SNIPPET_TOKENS})`;
  const filter = filterSql(filters);
  return {
    sql: `SELECT ${HIT_COLUMNS}, ${snippet} AS snippet FROM ${t} JOIN messages m ON m.id = ${t}.rowid WHERE ${t} MATCH ?${filter.sql} ORDER BY ${orderBy(sort, `${t}.rank`)} LIMIT ? OFFSET ?`,
    params: [match, ...filter.params, page.limit, page.offset],
  };
}

/** Escape LIKE wildcards (`%`, `_`) and the escape character itself. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function termPredicate(): string {
  return `(${LIKE_COLUMNS.map((c) => `ifnull(m.${c}, '') LIKE ? ESCAPE '\\'`).join(" OR ")})`;
}

/**
 * LIKE scan of the canonical rows (case-insensitive for ASCII, as SQLite's LIKE is), over full
 * content, mirroring the query's OR-of-AND-groups; `window` restricts it to an id range.
 */
export function likeSearchSql(
  query: ParsedQuery,
  filters: SearchFilters,
  sort: SearchSort,
  page: Page,
  window?: IdWindow,
): Sql {
  const params: SqlValue[] = [];
  const groups = query.groups.map((group) => {
    const terms = group.map((term) => {
      params.push(...LIKE_COLUMNS.map(() => likePattern(term.text)));
      return `${term.negated ? "NOT " : ""}${termPredicate()}`;
    });
    return `(${terms.join(" AND ")})`;
  });
  const filter = filterSql(filters, window);
  return {
    sql: `SELECT ${HIT_COLUMNS} FROM messages m WHERE (${groups.join(" OR ")})${filter.sql} ORDER BY ${orderBy(sort, undefined)} LIMIT ? OFFSET ?`,
    params: [...params, ...filter.params, page.limit, page.offset],
  };
}

/**
 * The LIKE snippet window of one column of one row: where the (ASCII-lowercased) term first
 * occurs, and the characters around it. Computed in SQL so a multi-megabyte tool output never
 * crosses into JavaScript. Parameters: lowercased term, message id.
 */
export function likeWindowSql(column: (typeof LIKE_COLUMNS)[number]): string {
  return `SELECT p, max(1, p - ${LIKE_SNIPPET_BEFORE_CHARS}) AS start, substr(c, max(1, p - ${LIKE_SNIPPET_BEFORE_CHARS}), ${LIKE_SNIPPET_CHARS}) AS w, length(c) AS n FROM (SELECT ${column} AS c, instr(lower(${column}), ?) AS p FROM messages WHERE id = ?)`;
}
