/**
 * Search execution: runs the plan the router chose through the Store's connection. Word-index
 * hits on short rows come with FTS5 snippets; every other hit gets a window computed in SQL and
 * marked the same way. Nothing here may grow faster than the size of the rows it reads: a
 * pasted megabyte of one character must not freeze a search (see search-sql.ts and query.ts).
 */
import type { Row } from "../driver.js";
import { allFresh, exec, get, type Op, policy, remember, snapshot, write } from "../engine/effects.js";
import { hasResultCode } from "../errors.js";
import { classifyFailure } from "../store/policy.js";
import { text } from "../store/rows.js";
import { FTS_SNIPPET_MAX_CHARS } from "./constants.js";
import { classifyFtsError } from "./corruption.js";
import { encodeCursor, fnv1a } from "./cursor.js";
import { windowSnippet } from "./like-snippet.js";
import { BASE_INDEX, type FtsIndexDef, TRIGRAM_INDEX } from "./projection.js";
import {
  checkWordBudget,
  type ParsedQuery,
  parseQuery,
  positiveTerms,
  toMatchExpression,
  toTrigramCandidates,
} from "./query.js";
import { chooseRoute, type RoutePlan, type SearchRoute } from "./route.js";
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
  indexStampSql,
  LIKE_COLUMNS,
  likeSearchSql,
  likeWindowSql,
  type Page,
  type Sql,
  TRIGRAM_NUL_PROBE,
  termsSql,
  walkStartSql,
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
    return indexSearchSql(TRIGRAM_INDEX, toTrigramCandidates(query), filters, sort, page, {
      exact,
      rankAfter: search.rankAfter,
    });
  }
  // Each positive term is a phrase that may match at every word of a row.
  const snippetMaxChars = Math.floor(FTS_SNIPPET_MAX_CHARS / Math.max(1, positiveTerms(query).length));
  return indexSearchSql(BASE_INDEX, toMatchExpression(query, { prefix: true }), filters, sort, page, {
    snippetMaxChars,
    rankAfter: search.rankAfter,
  });
}

/** Hits of one page, with the last hit's rank when the index ranked them. */
interface PageHits {
  hits: SearchHit[];
  lastRank?: number;
}

function* indexHits(plan: RoutePlan, query: ParsedQuery, search: NormalizedSearch, page: Page): Op<PageHits> {
  const { sql, params } = indexQuery(plan, query, search, page);
  const terms = positiveTerms(query);
  let rows: Row[];
  try {
    // Dynamic SQL is prepared per call, not cached: its text varies with the query's shape.
    rows = yield* allFresh(sql, params);
  } catch (error) {
    if (isQuerySyntaxError(error)) return { hits: [] };
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
  const last = rows[rows.length - 1]?.rank;
  return { hits, lastRank: typeof last === "number" ? last : undefined };
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
export function* executeSearch(plan: RoutePlan, query: ParsedQuery, search: NormalizedSearch): Op<PageHits> {
  if (query.groups.length === 0 || search.page.limit === 0) return { hits: [] };
  if (plan.index === undefined) return { hits: yield* likeHits(query, search, search.page) };
  if (!plan.topUp) return yield* indexHits(plan, query, search, search.page);
  // Both sources are sorted; fetching offset+limit from each and merging gives the exact page.
  const { limit, offset } = search.page;
  const head: Page = { limit: offset + limit, offset: 0 };
  const merged = merge(
    (yield* indexHits(plan, query, search, head)).hits,
    yield* likeHits(query, search, head, plan.topUp),
    search.sort,
  );
  return { hits: merged.slice(offset, offset + limit) };
}

/** The index a rank walk reads on this route (see cursor.ts), or undefined (time order, LIKE,
 * a backfill top-up: those walk by key or position). */
function rankedIndex(plan: RoutePlan | undefined, search: NormalizedSearch): FtsIndexDef | undefined {
  if (search.sort !== "rank" || plan?.index === undefined || plan.topUp) return undefined;
  return plan.index === "trigram" ? TRIGRAM_INDEX : BASE_INDEX;
}

const stampOf = (def: FtsIndexDef, hex: unknown) => `${def.table}:${fnv1a(String(hex))}`;

/**
 * The result of one page, with the cursor to the next when the page is full. Runs in the same
 * snapshot as the page, so a first page's `maxId` bounds exactly the rows it ranked, and its
 * stamp is the index state that ranked them. `stamp`: already read for this page, if it was.
 */
function* pageResult(
  route: SearchRoute,
  page: PageHits,
  search: NormalizedSearch,
  ranked: FtsIndexDef | undefined,
  stamp?: string,
): Op<SearchResult> {
  const { hits } = page;
  const last = hits[hits.length - 1];
  if (search.page.limit === 0 || hits.length < search.page.limit || !last) return { route, hits };
  let maxId = search.cursor?.maxId;
  if (maxId === undefined || (ranked && stamp === undefined)) {
    const row = yield* get(walkStartSql(ranked));
    maxId ??= Number(row?.m ?? 0);
    if (ranked) stamp ??= stampOf(ranked, row?.s);
  }
  const nextCursor = encodeCursor({
    fingerprint: search.fingerprint,
    maxId,
    returned: (search.cursor ? search.cursor.returned : search.page.offset) + hits.length,
    after: search.sort === "rank" ? undefined : { timestamp: last.timestamp, id: last.messageId },
    rankAfter:
      stamp !== undefined && page.lastRank !== undefined
        ? { stamp, rank: page.lastRank, id: last.messageId }
        : undefined,
  });
  return { route, hits, nextCursor };
}

function* likePage(parsed: ParsedQuery, search: NormalizedSearch): Op<SearchResult> {
  return yield* pageResult("like", { hits: yield* likeHits(parsed, search, search.page) }, search, undefined);
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
    return yield* snapshot(() => routeAndRun(parsed, search, chosen), { ownsCorruption: true });
  } catch (error) {
    // Not the index's to answer for: classified as any read's failure (structural corruption
    // makes the store read-only).
    if (chosen.plan?.index === undefined || classifyFtsError(error) === "other")
      throw classifyFailure(yield* policy(), error);
    const result = yield* snapshot(() => likePage(parsed, search));
    if (!readOnly) {
      try {
        yield* write(() => detachIndexOp(`FTS corruption on a search: ${message(error)}`));
      } catch {
        // Busy or read-only file: the next search meets the same error and answers by LIKE again.
      }
    }
    return result;
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
  // A rank cursor from this very state of this index seeks; any other goes on by position.
  const ranked = rankedIndex(plan, search);
  const seek = search.cursor?.rankAfter;
  let stamp: string | undefined;
  if (seek && ranked) stamp = stampOf(ranked, (yield* get(indexStampSql(ranked)))?.s);
  const run =
    seek && stamp !== undefined && seek.stamp === stamp
      ? { ...search, page: { ...search.page, offset: 0 }, rankAfter: { rank: seek.rank, id: seek.id } }
      : search;
  return yield* pageResult(plan.route, yield* executeSearch(plan, parsed, run), search, ranked, stamp);
}
