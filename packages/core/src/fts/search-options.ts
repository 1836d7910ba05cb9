/**
 * The public search shapes (spec §8) and their validation: bad options get a typed
 * InvalidInputError naming the option, before any SQL runs (a value SQLite would refuse, such
 * as a non-integer offset or more filter values than it takes variables, never reaches it); an
 * oversized but valid limit is capped, not refused.
 */
import { MAX_SEARCH_FILTER_VALUES, MAX_SEARCH_LIMIT, MAX_SOURCE_CHARS } from "../constants.js";
import { InvalidInputError } from "../errors.js";
import { ROLES, type Role } from "../store/types.js";
import * as valid from "../store/validate.js";
import { DEFAULT_SEARCH_LIMIT } from "./constants.js";
import type { SearchRoute } from "./route.js";
import type { Page, SearchFilters, SearchSort } from "./search-sql.js";

export type { SearchRoute } from "./route.js";
export type { SearchSort } from "./search-sql.js";

/** Options of `store.search`. An option given as null (or the whole object as null) takes its
 * default; every other wrong type is an InvalidInputError. */
export interface SearchOptions {
  /** Page size: an integer ≥ 0 (default 20; values above MAX_SEARCH_LIMIT are capped to it). */
  limit?: number;
  /** Hits to skip: an integer from 0 to Number.MAX_SAFE_INTEGER. */
  offset?: number;
  /** Only these roles (non-empty; duplicates ignored). A filter that includes "tool" scans full
   * content with LIKE. */
  roles?: readonly Role[];
  /** Only sessions with these sources: non-empty, at most MAX_SEARCH_FILTER_VALUES distinct
   * values of at most MAX_SOURCE_CHARS characters. */
  sources?: readonly string[];
  /** Only this session (a valid session id). */
  sessionId?: string;
  /** Epoch seconds, inclusive (a finite number). */
  since?: number;
  /** Epoch seconds, exclusive (a finite number). */
  until?: number;
  /** "rank" (bm25; LIKE answers newest first), "newest" or "oldest". Default "rank". */
  sort?: SearchSort;
  /** Match terms as substrings (trigram index, LIKE for terms under 3 characters). */
  substring?: boolean;
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
}

/** Validated options. */
export interface NormalizedSearch {
  filters: SearchFilters;
  sort: SearchSort;
  page: Page;
  substring: boolean;
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
  return {
    filters,
    sort: valid.choiceOption(o.sort, "search.sort", SORTS) ?? "rank",
    page: {
      limit: Math.min(limit, MAX_SEARCH_LIMIT),
      offset: valid.integerOption(o.offset, "search.offset", 0, Number.MAX_SAFE_INTEGER) ?? 0,
    },
    substring: valid.flagOption(o.substring, "search.substring") ?? false,
  };
}
