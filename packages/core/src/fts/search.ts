/**
 * Search execution: runs the plan the router chose through the Store's connection. Word-index
 * hits on short rows come with FTS5 snippets; every other hit gets a window computed in SQL and
 * marked the same way. Nothing here may grow faster than the size of the rows it reads: a
 * pasted megabyte of one character must not freeze a search (see search-sql.ts and query.ts).
 */
import type { Row } from "../driver.js";
import { hasResultCode } from "../errors.js";
import type { StoreContext } from "../store/context.js";
import { text } from "../store/rows.js";
import { FTS_SNIPPET_MAX_CHARS } from "./constants.js";
import { classifyFtsError } from "./corruption.js";
import { windowSnippet } from "./like-snippet.js";
import { BASE_INDEX, TRIGRAM_INDEX } from "./projection.js";
import {
  checkWordBudget,
  type ParsedQuery,
  parseQuery,
  positiveTerms,
  toMatchExpression,
  toTrigramCandidates,
} from "./query.js";
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
  type Sql,
  TRIGRAM_NUL_PROBE,
  termsSql,
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
    toolName: text(row.tool_name),
  };
}

/** A MATCH expression FTS5 still refuses is a query problem, answered with no hits. */
function isQuerySyntaxError(error: unknown): boolean {
  return hasResultCode(error, "ERROR") && /fts5|syntax error|unterminated|MATCH/i.test(error.message);
}

/** Per connection (one SQLite library): does its trigram tokenizer read past a NUL? */
const readsPastNul = new WeakMap<object, boolean>();

/** Ask this connection's SQLite once (see TRIGRAM_NUL_PROBE). */
function trigramReadsPastNul(ctx: StoreContext): boolean {
  let known = readsPastNul.get(ctx.conn);
  if (known === undefined) {
    try {
      ctx.conn.exec(TRIGRAM_NUL_PROBE.setup);
      try {
        known = Number(ctx.conn.prepare(TRIGRAM_NUL_PROBE.query).get()?.n) === 1;
      } finally {
        ctx.conn.exec(TRIGRAM_NUL_PROBE.teardown);
      }
    } catch {
      // Cannot tell (no room for a temporary table?): LIKE never misses, so assume the worst.
      known = false;
    }
    readsPastNul.set(ctx.conn, known);
  }
  return known;
}

/** The trigram route's exact test runs over the columns the trigram index holds. */
const TRIGRAM_COLUMNS = TRIGRAM_INDEX.columns.map((c) => c.name);

/** The index query of `plan`: word MATCH with bounded snippets, or trigram candidates and the
 * exact substring test that turns them into hits. */
function indexQuery(plan: RoutePlan, query: ParsedQuery, search: NormalizedSearch, page: Page): Sql {
  const { filters, sort } = search;
  if (plan.index === "trigram") {
    const exact = termsSql(query, TRIGRAM_COLUMNS);
    return indexSearchSql(TRIGRAM_INDEX, toTrigramCandidates(query), filters, sort, page, { exact });
  }
  // Each positive term is a phrase that may match at every word of a row.
  const snippetMaxChars = Math.floor(FTS_SNIPPET_MAX_CHARS / Math.max(1, positiveTerms(query).length));
  return indexSearchSql(BASE_INDEX, toMatchExpression(query, { prefix: true }), filters, sort, page, {
    snippetMaxChars,
  });
}

function indexHits(
  ctx: StoreContext,
  plan: RoutePlan,
  query: ParsedQuery,
  search: NormalizedSearch,
  page: Page,
): SearchHit[] {
  const { sql, params } = indexQuery(plan, query, search, page);
  const terms = positiveTerms(query);
  try {
    // Dynamic SQL is prepared per call, not cached: its text varies with the query's shape.
    return ctx.conn
      .prepare(sql)
      .all(...params)
      .map((row) =>
        toHit(
          row,
          row.snippet === null || row.snippet === undefined
            ? likeSnippetOf(ctx, Number(row.id), terms)
            : String(row.snippet),
        ),
      );
  } catch (error) {
    if (isQuerySyntaxError(error)) return [];
    throw error;
  }
}

/**
 * The snippet of one hit without an FTS5 snippet: the first column and term that occur,
 * marked. A word hit may match only as FTS5 folds words (`cafe` finds `Café`), which a byte
 * search does not see: such a row shows the start of its first non-empty column.
 */
function likeSnippetOf(ctx: StoreContext, id: number, terms: readonly string[]): string {
  // instr() finds the empty string at position 1 of any non-NULL value.
  for (const candidates of [terms, [""]]) {
    for (const column of LIKE_COLUMNS) {
      for (const term of candidates) {
        const row = ctx.statement(likeWindowSql(column)).get(term, id);
        if (row && Number(row.p) > 0 && Number(row.n) > 0 && row.w instanceof Uint8Array) {
          const window = {
            bytes: row.w,
            start: Number(row.start),
            match: Number(row.p),
            total: Number(row.n),
          };
          return windowSnippet(window, terms);
        }
      }
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
  if (!search.substring) checkWordBudget(parsed);
  let plan: RoutePlan | undefined;
  try {
    return ctx.snapshot(() => {
      const snap = readSnapshot((sql) => ctx.statement(sql));
      const trusted = !isStale(snap);
      const trigramUsable = trusted && hasIndex(snap, TRIGRAM_INDEX);
      plan = chooseRoute({
        query: parsed,
        roles: search.filters.roles,
        substring: search.substring,
        baseUsable: trusted && hasIndex(snap, BASE_INDEX),
        trigramUsable,
        trigramReadsPastNul: trigramUsable && trigramReadsPastNul(ctx),
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
