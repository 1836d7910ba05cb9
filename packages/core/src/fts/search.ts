/**
 * Search execution: runs the plan the router chose through the Store's connection. Word-index
 * hits on short rows come with FTS5 snippets; every other hit gets a window computed in SQL and
 * marked the same way. Nothing here may grow faster than the size of the rows it reads: a
 * pasted megabyte of one character must not freeze a search (see search-sql.ts and query.ts).
 */
import type { Row } from "../driver.js";
import { all, allVarying, exec, get, type Op, remember } from "../engine/effects.js";
import { hasResultCode } from "../errors.js";
import { text } from "../model/rows.js";
import { policy, snapshot, write } from "../policy/calls.js";
import { classifyFailure } from "../policy/state.js";
import { FTS_SNIPPET_MAX_CHARS } from "./constants.js";
import { classifyFtsError } from "./corruption.js";
import { encodeCursor, fnv1a } from "./cursor.js";
import { windowSnippet } from "./like-snippet.js";
import { BASE_INDEX, type FtsIndexDef, TRIGRAM_INDEX } from "./projection.js";
import {
  checkWordBudget,
  hasCjk,
  type ParsedQuery,
  parseQuery,
  positiveTerms,
  toMatchExpression,
  toTrigramCandidates,
} from "./query.js";
import { type RankedList, RankedWalks, resumeAt } from "./ranked-walks.js";
import { chooseRoute, type RoutePlan, type SearchRoute } from "./route.js";
import {
  type NormalizedSearch,
  normalizeSearch,
  type SearchHit,
  type SearchOptions,
  type SearchResult,
} from "./search-options.js";
import {
  foldsCase,
  type IdWindow,
  type IndexSearchOptions,
  indexSearchSql,
  indexStampSql,
  LIKE_COLUMNS,
  likeSearchSql,
  likeWindowsSql,
  type Page,
  rankedIdsSql,
  rankedPageSql,
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
      return Number((yield* allVarying(TRIGRAM_NUL_PROBE.query, []))[0]?.n) === 1;
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

/** What an index route asks its index: the MATCH expression, and the word index's snippet
 * bound or the trigram index's exact substring test that turns candidates into hits. */
interface IndexRequest {
  def: FtsIndexDef;
  match: string;
  options: Pick<IndexSearchOptions, "exact" | "snippetMaxChars">;
}

function indexRequest(plan: RoutePlan, query: ParsedQuery): IndexRequest {
  if (plan.index === "trigram") {
    const exact = termsSql(query, TRIGRAM_COLUMNS);
    return { def: TRIGRAM_INDEX, match: toTrigramCandidates(query), options: { exact } };
  }
  // Each positive term is a phrase that may match at every word of a row.
  const snippetMaxChars = Math.floor(FTS_SNIPPET_MAX_CHARS / Math.max(1, positiveTerms(query).length));
  return { def: BASE_INDEX, match: toMatchExpression(query, { prefix: true }), options: { snippetMaxChars } };
}

/**
 * The index query of `plan` for one page. Only a cursor page reads its hits' ranks (for the
 * next cursor's seek): a first page's cursor goes on from the ranking its next page reads, and
 * reading ranks would cost the first page a second pass over its matches (see withRank).
 */
function indexQuery(plan: RoutePlan, query: ParsedQuery, search: NormalizedSearch, page: Page): Sql {
  const { def, match, options } = indexRequest(plan, query);
  return indexSearchSql(def, match, search.filters, search.sort, page, {
    ...options,
    rankAfter: search.rankAfter,
    withRank: search.cursor !== undefined,
  });
}

/** Hits of one page, with the last hit's rank when the page read ranks. */
interface PageHits {
  hits: SearchHit[];
  lastRank?: number;
}

function* indexHits(plan: RoutePlan, query: ParsedQuery, search: NormalizedSearch, page: Page): Op<PageHits> {
  const { sql, params } = indexQuery(plan, query, search, page);
  let rows: Row[];
  try {
    // Its text varies with the query's shape: kept among the last few such statements only.
    rows = yield* allVarying(sql, params);
  } catch (error) {
    if (isQuerySyntaxError(error)) return { hits: [] };
    throw error;
  }
  const last = rows[rows.length - 1]?.rank;
  return { hits: yield* withSnippets(rows, query), lastRank: typeof last === "number" ? last : undefined };
}

/** Hits of `rows`, in their order: a row's own `snippet` column when it has one, else the
 * LIKE window (all of a page's in a few statements, see likeSnippets). */
function* withSnippets(rows: readonly Row[], query: ParsedQuery): Op<SearchHit[]> {
  const missing = rows
    .filter((row) => row.snippet === null || row.snippet === undefined)
    .map((row) => Number(row.id));
  const windows = missing.length > 0 ? yield* likeSnippets(missing, positiveTerms(query)) : undefined;
  return rows.map((row) =>
    toHit(
      row,
      row.snippet === null || row.snippet === undefined
        ? (windows?.get(Number(row.id)) ?? "")
        : String(row.snippet),
    ),
  );
}

/**
 * The snippets of hits without an FTS5 snippet: for each, the first column and term that
 * occur, marked. A word hit may match only as FTS5 folds words (`cafe` finds `Café`), which a
 * byte search does not see: such a row shows the start of its first non-empty column. One
 * statement per (column, term) still unresolved, each for every hit it is still needed for —
 * usually one statement for the whole page.
 */
function* likeSnippets(ids: readonly number[], terms: readonly string[]): Op<Map<number, string>> {
  const snippets = new Map<number, string>();
  let pending = ids;
  // instr() finds the empty string at position 1 of any non-NULL value.
  for (const candidates of [terms, [""]]) {
    for (const column of LIKE_COLUMNS) {
      for (const term of candidates) {
        if (pending.length === 0) return snippets;
        const sql = likeWindowsSql(column, foldsCase(term));
        for (const row of yield* all(sql, term, JSON.stringify(pending))) {
          if (Number(row.p) > 0 && Number(row.n) > 0 && row.w instanceof Uint8Array) {
            const window = {
              bytes: row.w,
              start: Number(row.start),
              match: Number(row.p),
              total: Number(row.n),
            };
            snippets.set(Number(row.id), windowSnippet(window, terms));
          }
        }
        pending = pending.filter((id) => !snippets.has(id));
      }
    }
  }
  return snippets;
}

/** LIKE scan of canonical rows, optionally restricted to an id window. A substring or CJK search
 * reads no tool output unless its roles name "tool" — whichever route answers it: the trigram
 * index holds no tool rows, and a scan standing in for it (a term under 3 characters, no trigram
 * index, a backfill's top-up) must not find more than the index would. */
export function* likeHits(
  query: ParsedQuery,
  search: NormalizedSearch,
  page: Page,
  window?: IdWindow,
): Op<SearchHit[]> {
  const toolless = (search.substring || hasCjk(query)) && !search.filters.roles?.includes("tool");
  const { sql, params } = likeSearchSql(query, search.filters, search.sort, page, window, toolless);
  return yield* withSnippets(yield* allVarying(sql, params), query);
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

/** The `remember` key of the ranked lists a connection keeps (ranked-walks.ts). */
export const RANKED_WALKS_KEY = "rankedWalks";

const rankedWalks = (): Op<RankedWalks> => remember(RANKED_WALKS_KEY, newRankedWalks);

// biome-ignore lint/correctness/useYield: `remember` takes an operation; this one runs no statement.
function* newRankedWalks(): Op<RankedWalks> {
  return new RankedWalks();
}

/** The whole ranking of a search (ids and ranks, at most `maxHits` of them), or undefined for a
 * MATCH expression FTS5 refuses. */
function* readRanking(
  request: IndexRequest,
  search: NormalizedSearch,
  maxHits: number,
): Op<RankedList | undefined> {
  const { sql, params } = rankedIdsSql(
    request.def,
    request.match,
    search.filters,
    maxHits + 1,
    request.options.exact,
  );
  let rows: Row[];
  try {
    rows = yield* allVarying(sql, params);
  } catch (error) {
    if (isQuerySyntaxError(error)) return undefined;
    throw error;
  }
  const kept = Math.min(rows.length, maxHits);
  const ids = new Float64Array(kept);
  const ranks = new Float64Array(kept);
  for (let i = 0; i < kept; i++) {
    const row = rows[i] as Row;
    ids[i] = Number(row.id);
    ranks[i] = Number(row.rank);
  }
  return { ids, ranks, complete: rows.length <= kept };
}

/**
 * The next page of a rank walk whose cursor was made in this very state of the index (its
 * stamp is `stamp`), from the walk's ranked list: read once, on the walk's first cursor page on
 * this connection, then kept. Undefined when the list cannot answer — the page goes past a
 * ranking kept only in part, or a row it names no longer matches — and the walk seeks instead.
 */
function* rankedListPage(
  plan: RoutePlan,
  query: ParsedQuery,
  search: NormalizedSearch,
  stamp: string,
  lastId: number,
): Op<PageHits | undefined> {
  const { cursor, page } = search;
  if (!cursor || page.limit === 0 || query.groups.length === 0) return undefined;
  const request = indexRequest(plan, query);
  const walks = yield* rankedWalks();
  const key = { fingerprint: search.fingerprint, stamp, maxId: cursor.maxId };
  let list = walks.get(key);
  if (!list) {
    list = yield* readRanking(request, search, walks.maxHits);
    if (!list) return undefined;
    walks.put(key, list);
  }
  const from = resumeAt(list, cursor.returned, lastId);
  if (from === undefined || (from + page.limit > list.ids.length && !list.complete)) return undefined;
  const to = Math.min(from + page.limit, list.ids.length);
  const ids = Array.from(list.ids.subarray(from, to));
  const { sql, params } = rankedPageSql(request.def, request.match, search.filters, ids, request.options);
  const rows = ids.length === 0 ? [] : yield* allVarying(sql, params);
  const stale = (row: Row, i: number) =>
    Number(row.id) !== ids[i] ||
    (Number(row.short) === 1 && (row.snippet === null || row.snippet === undefined));
  if (rows.length !== ids.length || rows.some(stale)) {
    walks.refuse(key);
    return undefined;
  }
  // A page that is not full ends the walk: its list is not needed again.
  if (to - from < page.limit) walks.delete(key);
  return { hits: yield* withSnippets(rows, query), lastRank: to > from ? list.ranks[to - 1] : undefined };
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
    rankAfter: stamp !== undefined ? { stamp, rank: page.lastRank, id: last.messageId } : undefined,
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
  if (!seek || stamp === undefined || seek.stamp !== stamp)
    return yield* pageResult(plan.route, yield* executeSearch(plan, parsed, search), search, ranked, stamp);
  const listed = yield* rankedListPage(plan, parsed, search, stamp, seek.id);
  if (listed) return yield* pageResult(plan.route, listed, search, ranked, stamp);
  // A first page's cursor has no rank to seek past: by position, this page reading ranks.
  if (seek.rank === undefined)
    return yield* pageResult(plan.route, yield* executeSearch(plan, parsed, search), search, ranked, stamp);
  const run = { ...search, page: { ...search.page, offset: 0 }, rankAfter: { rank: seek.rank, id: seek.id } };
  return yield* pageResult(plan.route, yield* executeSearch(plan, parsed, run), search, ranked, stamp);
}
