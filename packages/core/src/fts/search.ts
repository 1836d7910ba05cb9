/**
 * Search execution: runs the plan the router chose through the Store's connection. Index hits
 * come with FTS5 snippets; LIKE hits get a window computed in SQL and marked the same way.
 */
import type { Row } from "../driver.js";
import { hasResultCode } from "../errors.js";
import type { StoreContext } from "../store/context.js";
import { classifyFtsError } from "./corruption.js";
import { asciiLower, likeSnippet } from "./like-snippet.js";
import { BASE_INDEX, TRIGRAM_INDEX } from "./projection.js";
import { type ParsedQuery, parseQuery, positiveTerms, toMatchExpression } from "./query.js";
import { chooseRoute, type RoutePlan } from "./route.js";
import {
  type NormalizedSearch,
  normalizeSearch,
  type SearchHit,
  type SearchOptions,
  type SearchResult,
} from "./search-options.js";
import {
  type IdWindow,
  indexSearchSql,
  LIKE_COLUMNS,
  likeSearchSql,
  likeWindowSql,
  type Page,
} from "./search-sql.js";
import { backfillWindow, hasIndex, isStale, readSnapshot } from "./state.js";
import { detachIndex } from "./triggers.js";

function toHit(row: Row, snippet: string): SearchHit {
  return {
    messageId: Number(row.id),
    sessionId: String(row.session_id),
    role: String(row.role),
    snippet,
    timestamp: Number(row.timestamp),
    toolName: row.tool_name === null || row.tool_name === undefined ? null : String(row.tool_name),
  };
}

/** A MATCH expression FTS5 still refuses is a query problem, answered with no hits. */
function isQuerySyntaxError(error: unknown): boolean {
  return hasResultCode(error, "ERROR") && /fts5|syntax error|unterminated|MATCH/i.test(error.message);
}

function indexHits(
  ctx: StoreContext,
  plan: RoutePlan,
  query: ParsedQuery,
  search: NormalizedSearch,
  page: Page,
): SearchHit[] {
  const def = plan.index === "trigram" ? TRIGRAM_INDEX : BASE_INDEX;
  const match = toMatchExpression(query, { prefix: plan.index === "base" });
  const { sql, params } = indexSearchSql(def, match, search.filters, search.sort, page);
  try {
    // Dynamic SQL is prepared per call, not cached: its text varies with the query's shape.
    return ctx.conn
      .prepare(sql)
      .all(...params)
      .map((row) => toHit(row, String(row.snippet ?? "")));
  } catch (error) {
    if (isQuerySyntaxError(error)) return [];
    throw error;
  }
}

/** The snippet of one LIKE hit: the first column and term that occur, marked. */
function likeSnippetOf(ctx: StoreContext, id: number, terms: readonly string[]): string {
  for (const column of LIKE_COLUMNS) {
    for (const term of terms) {
      const row = ctx.statement(likeWindowSql(column)).get(asciiLower(term), id);
      if (row && Number(row.p) > 0)
        return likeSnippet(String(row.w), Number(row.start), Number(row.n), terms);
    }
  }
  return "";
}

/** LIKE scan of canonical rows, optionally restricted to an id window. */
export function likeHits(
  ctx: StoreContext,
  query: ParsedQuery,
  search: NormalizedSearch,
  page: Page,
  window?: IdWindow,
): SearchHit[] {
  const { sql, params } = likeSearchSql(query, search.filters, search.sort, page, window);
  const terms = positiveTerms(query);
  return ctx.conn
    .prepare(sql)
    .all(...params)
    .map((row) => toHit(row, likeSnippetOf(ctx, Number(row.id), terms)));
}

function compareByTime(a: SearchHit, b: SearchHit): number {
  return a.timestamp - b.timestamp || a.messageId - b.messageId;
}

/** Merge index hits with the top-up: by time when sorted by time, else index hits (by rank) first. */
function merge(indexed: SearchHit[], topUp: SearchHit[], sort: NormalizedSearch["sort"]): SearchHit[] {
  const seen = new Set(indexed.map((h) => h.messageId));
  const extra = topUp.filter((h) => !seen.has(h.messageId));
  if (sort === "oldest") return [...indexed, ...extra].sort(compareByTime);
  if (sort === "newest") return [...indexed, ...extra].sort((a, b) => compareByTime(b, a));
  return [...indexed, ...extra];
}

/** Run `plan`; throws what the index throws (the caller decides about corruption). */
export function executeSearch(
  ctx: StoreContext,
  plan: RoutePlan,
  query: ParsedQuery,
  search: NormalizedSearch,
): SearchHit[] {
  if (query.groups.length === 0 || search.page.limit === 0) return [];
  if (plan.index === undefined) return likeHits(ctx, query, search, search.page);
  if (!plan.topUp) return indexHits(ctx, plan, query, search, search.page);
  // Both sources are sorted; fetching offset+limit from each and merging gives the exact page.
  const { limit, offset } = search.page;
  const head: Page = { limit: offset + limit, offset: 0 };
  const merged = merge(
    indexHits(ctx, plan, query, search, head),
    likeHits(ctx, query, search, head, plan.topUp),
    search.sort,
  );
  return merged.slice(offset, offset + limit);
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Validate, parse, route and run a search. The route is chosen and run in one read snapshot:
 * another process may start a backfill (emptying the index) or detach it between two
 * statements, and a plan read before that must not run against the index after it. When the
 * index fails with corruption, the canonical rows answer by LIKE — if that works, the
 * corruption was the index's, so it is detached too (writable stores); if LIKE fails as well,
 * the damage is structural and the error propagates.
 */
export function runSearch(ctx: StoreContext, query: string, options?: SearchOptions): SearchResult {
  const search = normalizeSearch(query, options);
  const parsed = parseQuery(query);
  let plan: RoutePlan | undefined;
  try {
    return ctx.snapshot(() => {
      const snap = readSnapshot((sql) => ctx.statement(sql));
      const trusted = !isStale(snap);
      plan = chooseRoute({
        query: parsed,
        roles: search.filters.roles,
        substring: search.substring,
        baseUsable: trusted && hasIndex(snap, BASE_INDEX),
        trigramUsable: trusted && hasIndex(snap, TRIGRAM_INDEX),
        backfill: backfillWindow(snap.meta),
      });
      return { route: plan.route, hits: executeSearch(ctx, plan, parsed, search) };
    });
  } catch (error) {
    if (plan?.index === undefined || classifyFtsError(error) === "other") throw error;
    const hits = ctx.read(() => likeHits(ctx, parsed, search, search.page));
    if (!ctx.readOnly) {
      try {
        ctx.write(() => detachIndex(ctx, `FTS corruption on a search: ${message(error)}`));
      } catch {
        // Busy or read-only file: the next search meets the same error and answers by LIKE again.
      }
    }
    return { route: "like", hits };
  }
}
