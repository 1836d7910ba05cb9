/**
 * The public search shapes (spec §8) and their validation: bad options get a typed
 * InvalidInputError naming the option, before any SQL runs (a value SQLite would refuse, such
 * as a non-integer offset or more filter values than it takes variables, never reaches it); an
 * oversized but valid limit is capped, not refused.
 */
import { MAX_SEARCH_FILTER_VALUES, MAX_SEARCH_LIMIT, MAX_SOURCE_CHARS } from "../constants.js";
import { InvalidInputError } from "../errors.js";
import { ROLES, type Role } from "../model/types.js";
import * as valid from "../model/validate.js";
import { DEFAULT_SEARCH_LIMIT } from "./constants.js";
import { decodeCursor, type SearchCursor, searchFingerprint } from "./cursor.js";
import type { SearchRoute } from "./route.js";
import type { Page, SearchFilters, SearchSort } from "./search-sql.js";

export type { SearchRoute } from "./route.js";
export type { SearchSort } from "./search-sql.js";

/** Options of `store.search`. An option given as null (or the whole object as null) takes its
 * default; every other wrong type is an InvalidInputError. */
export interface SearchOptions {
  /** Page size: an integer ≥ 0 (default 20; values above MAX_SEARCH_LIMIT are capped to it). */
  limit?: number | null | undefined;
  /** Hits to skip: an integer from 0 to Number.MAX_SAFE_INTEGER. */
  offset?: number | null | undefined;
  /** Only these roles (non-empty; duplicates ignored). A filter that includes "tool" scans full
   * content with LIKE. */
  roles?: readonly Role[] | null | undefined;
  /** Only sessions with these sources: non-empty, at most MAX_SEARCH_FILTER_VALUES distinct
   * values of at most MAX_SOURCE_CHARS characters. */
  sources?: readonly string[] | null | undefined;
  /** Only this session (a valid session id). */
  sessionId?: string | null | undefined;
  /** Epoch seconds, inclusive (a finite number). */
  since?: number | null | undefined;
  /** Epoch seconds, exclusive (a finite number). */
  until?: number | null | undefined;
  /** "rank" (bm25; LIKE answers newest first), "newest" or "oldest". Default "rank". */
  sort?: SearchSort | null | undefined;
  /** Match terms as substrings (trigram index, LIKE for terms under 3 characters). */
  substring?: boolean | null | undefined;
  /** Continue a walk: the `nextCursor` of the previous page of this same search (same query,
   * sort, substring flag and filters; the limit may change). Not with a non-zero `offset`. */
  cursor?: string | null | undefined;
}

/** One search hit. */
export interface SearchHit {
  messageId: number;
  sessionId: string;
  role: string;
  /** Text around the match, matches wrapped in « », cuts marked with …. */
  snippet: string;
  /** Epoch seconds. */
  timestamp: number;
  toolName: string | null;
}

/** What `store.search` returns: the route that served it and the hits. */
export interface SearchResult {
  route: SearchRoute;
  hits: SearchHit[];
  /** Present when the page is full (more hits may follow): pass it as `cursor` with the same
   * query and options for the next page. Messages appended after the first page are not part
   * of the walk. */
  nextCursor?: string;
}

/** Validated options. */
export interface NormalizedSearch {
  filters: SearchFilters;
  sort: SearchSort;
  page: Page;
  substring: boolean;
  /** Identifies this search for its cursors. */
  fingerprint: string;
  /** Where a walk stands, when continued from a cursor. */
  cursor?: SearchCursor;
  /** Rank order on an index whose stamp still matches the cursor's: seek past this (rank, id)
   * instead of skipping `page.offset` hits (set by the router, inside the snapshot). */
  rankAfter?: { rank: number; id: number };
}

const SORTS: readonly SearchSort[] = ["rank", "newest", "oldest"];

const SEARCH_OPTION_KEYS = [
  "limit",
  "offset",
  "roles",
  "sources",
  "sessionId",
  "since",
  "until",
  "sort",
  "substring",
  "cursor",
] as const satisfies readonly (keyof SearchOptions)[];

/** Validate a query and its options (undefined or null options: all defaults). */
export function normalizeSearch(query: unknown, options?: SearchOptions | null): NormalizedSearch {
  if (typeof query !== "string") throw new InvalidInputError("search.query", "expected a string");
  const o = valid.options(options, "search", SEARCH_OPTION_KEYS);
  const filters: SearchFilters = {
    roles: valid.listOption(o.roles, "search.roles", {
      allowed: ROLES,
      maxItems: ROLES.length,
      maxChars: MAX_SOURCE_CHARS,
    }),
    sources: valid.listOption(o.sources, "search.sources", {
      maxItems: MAX_SEARCH_FILTER_VALUES,
      maxChars: MAX_SOURCE_CHARS,
    }),
    sessionId: o.sessionId === undefined ? undefined : valid.sessionId(o.sessionId, "search.sessionId"),
    since: valid.instantOption(o.since, "search.since"),
    until: valid.instantOption(o.until, "search.until"),
  };
  const limit =
    valid.integerOption(o.limit, "search.limit", 0, Number.MAX_SAFE_INTEGER) ?? DEFAULT_SEARCH_LIMIT;
  const sort = valid.choiceOption(o.sort, "search.sort", SORTS) ?? "rank";
  const substring = valid.flagOption(o.substring, "search.substring") ?? false;
  const offset = valid.integerOption(o.offset, "search.offset", 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const fingerprint = searchFingerprint(query, sort, substring, filters);
  const cursor = o.cursor === undefined ? undefined : decodeCursor(o.cursor, fingerprint, sort);
  if (cursor) filters.walk = { maxId: cursor.maxId, after: cursor.after };
  if (cursor && offset !== 0)
    throw new InvalidInputError(
      "search.offset",
      "cannot be combined with a cursor: the cursor says where to go on",
    );
  return {
    filters,
    sort,
    // Rank order skips the hits already returned; time order seeks past the last one (keyset).
    page: {
      limit: Math.min(limit, MAX_SEARCH_LIMIT),
      offset: cursor ? (sort === "rank" ? cursor.returned : 0) : offset,
    },
    substring,
    fingerprint,
    cursor,
  };
}
