/**
 * Search execution: runs the plan the router chose through the Store's connection. Word-index
 * hits on short rows come with FTS5 snippets; every other hit gets a window computed in SQL and
 * marked the same way. Nothing here may grow faster than the size of the rows it reads: a
 * pasted megabyte of one character must not freeze a search (see search-sql.ts and query.ts).
 */
import type { Row } from "../driver.js";
import { allFresh, exec, get, type Op, read, remember, snapshot, write } from "../engine/effects.js";
import { hasResultCode } from "../errors.js";
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
import { backfillWindow, hasIndex, isStale, loadSnapshot } from "./state.js";
import { detachIndexOp } from "./triggers.js";

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

/** Does this connection's trigram tokenizer read past a NUL? Asked once per connection (one
 * SQLite library; see TRIGRAM_NUL_PROBE). */
const trigramReadsPastNul = (): Op<boolean> => remember("trigramReadsPastNul", probeTrigramNul);

function* probeTrigramNul(): Op<boolean> {
  try {
    for (const sql of TRIGRAM_NUL_PROBE.setup) yield* exec(sql);
    try {
      return Number((yield* allFresh(TRIGRAM_NUL_PROBE.query, []))[0]?.n) === 1;
    } finally {
      yield* exec(TRIGRAM_NUL_PROBE.teardown);
    }
  } catch {
    // Cannot tell (no room for a temporary table?): LIKE never misses, so assume the worst.
    return false;
  }
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

function* indexHits(
  plan: RoutePlan,
  query: ParsedQuery,
  search: NormalizedSearch,
  page: Page,
): Op<SearchHit[]> {
  const { sql, params } = indexQuery(plan, query, search, page);
  const terms = positiveTerms(query);
  let rows: Row[];
  try {
    // Dynamic SQL is prepared per call, not cached: its text varies with the query's shape.
    rows = yield* allFresh(sql, params);
  } catch (error) {
    if (isQuerySyntaxError(error)) return [];
    throw error;
  }
  const hits: SearchHit[] = [];
  for (const row of rows) {
    const snippet =
      row.snippet === null || row.snippet === undefined
        ? yield* likeSnippetOf(Number(row.id), terms)
        : String(row.snippet);
    hits.push(toHit(row, snippet));
  }
  return hits;
}

/**
 * The snippet of one hit without an FTS5 snippet: the first column and term that occur,
 * marked. A word hit may match only as FTS5 folds words (`cafe` finds `Café`), which a byte
 * search does not see: such a row shows the start of its first non-empty column.
 */
function* likeSnippetOf(id: number, terms: readonly string[]): Op<string> {
  // instr() finds the empty string at position 1 of any non-NULL value.
  for (const candidates of [terms, [""]]) {
    for (const column of LIKE_COLUMNS) {
      for (const term of candidates) {
        const row = yield* get(likeWindowSql(column), term, id);
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
export function* likeHits(
  query: ParsedQuery,
  search: NormalizedSearch,
  page: Page,
  window?: IdWindow,
): Op<SearchHit[]> {
  const { sql, params } = likeSearchSql(query, search.filters, search.sort, page, window);
  const terms = positiveTerms(query);
  const hits: SearchHit[] = [];
  for (const row of yield* allFresh(sql, params))
    hits.push(toHit(row, yield* likeSnippetOf(Number(row.id), terms)));
  return hits;
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
export function* executeSearch(
  plan: RoutePlan,
  query: ParsedQuery,
  search: NormalizedSearch,
): Op<SearchHit[]> {
  if (query.groups.length === 0 || search.page.limit === 0) return [];
  if (plan.index === undefined) return yield* likeHits(query, search, search.page);
  if (!plan.topUp) return yield* indexHits(plan, query, search, search.page);
  // Both sources are sorted; fetching offset+limit from each and merging gives the exact page.
  const { limit, offset } = search.page;
  const head: Page = { limit: offset + limit, offset: 0 };
  const merged = merge(
    yield* indexHits(plan, query, search, head),
    yield* likeHits(query, search, head, plan.topUp),
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
export function* runSearch(
  query: string,
  options: SearchOptions | undefined,
  readOnly: boolean,
): Op<SearchResult> {
  const search = normalizeSearch(query, options);
  const parsed = parseQuery(query);
  if (!search.substring) checkWordBudget(parsed);
  const chosen: { plan?: RoutePlan } = {};
  try {
    return yield* snapshot(() => routeAndRun(parsed, search, chosen));
  } catch (error) {
    if (chosen.plan?.index === undefined || classifyFtsError(error) === "other") throw error;
    const hits = yield* read(() => likeHits(parsed, search, search.page));
    if (!readOnly) {
      try {
        yield* write(() => detachIndexOp(`FTS corruption on a search: ${message(error)}`));
      } catch {
        // Busy or read-only file: the next search meets the same error and answers by LIKE again.
      }
    }
    return { route: "like", hits };
  }
}

/** Inside the snapshot: read the index state, choose the route (kept in `chosen` for the
 * corruption handling), run it. */
function* routeAndRun(
  parsed: ParsedQuery,
  search: NormalizedSearch,
  chosen: { plan?: RoutePlan },
): Op<SearchResult> {
  const snap = yield* loadSnapshot();
  const trusted = !isStale(snap);
  const trigramUsable = trusted && hasIndex(snap, TRIGRAM_INDEX);
  const plan = chooseRoute({
    query: parsed,
    roles: search.filters.roles,
    substring: search.substring,
    baseUsable: trusted && hasIndex(snap, BASE_INDEX),
    trigramUsable,
    trigramReadsPastNul: trigramUsable && (yield* trigramReadsPastNul()),
    backfill: backfillWindow(snap.meta),
  });
  chosen.plan = plan;
  return { route: plan.route, hits: yield* executeSearch(plan, parsed, search) };
}
