/**
 * The public search shapes (spec §8) and their validation: bad options get a typed
 * InvalidInputError naming the option; an oversized limit is capped, not refused.
 */
import { MAX_SEARCH_LIMIT } from "../constants.js";
import { InvalidInputError } from "../errors.js";
import { ROLES, type Role } from "../store/types.js";
import { DEFAULT_SEARCH_LIMIT } from "./constants.js";
import type { SearchRoute } from "./route.js";
import type { Page, SearchFilters, SearchSort } from "./search-sql.js";

export type { SearchRoute } from "./route.js";
export type { SearchSort } from "./search-sql.js";

/** Options of `store.search`. */
export interface SearchOptions {
  /** Page size (default 20, capped at MAX_SEARCH_LIMIT). */
  limit?: number;
  /** Hits to skip. */
  offset?: number;
  /** Only these roles. A filter that includes "tool" scans full content with LIKE. */
  roles?: readonly Role[];
  /** Only sessions with these sources. */
  sources?: readonly string[];
  /** Only this session. */
  sessionId?: string;
  /** Epoch seconds, inclusive. */
  since?: number;
  /** Epoch seconds, exclusive. */
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

function count(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new InvalidInputError(`search.${name}`, `expected a non-negative integer, got ${String(value)}`);
  }
  return value;
}

function time(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new InvalidInputError(
      `search.${name}`,
      `expected epoch seconds (a finite number), got ${String(value)}`,
    );
  }
  return value;
}

function strings(name: string, value: unknown, allowed?: readonly string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.some((v) => typeof v !== "string" || (allowed && !allowed.includes(v)))
  ) {
    const expected = allowed ? `an array of ${allowed.join(", ")}` : "an array of strings";
    throw new InvalidInputError(`search.${name}`, `expected ${expected}`);
  }
  return [...new Set(value as string[])];
}

/** Validate a query and its options. */
export function normalizeSearch(query: unknown, options: SearchOptions = {}): NormalizedSearch {
  if (typeof query !== "string") throw new InvalidInputError("search.query", "expected a string");
  if (options.sessionId !== undefined && typeof options.sessionId !== "string") {
    throw new InvalidInputError("search.sessionId", "expected a string");
  }
  const sort = options.sort ?? "rank";
  if (!SORTS.includes(sort))
    throw new InvalidInputError("search.sort", `expected one of ${SORTS.join(", ")}`);
  const filters: SearchFilters = {
    roles: strings("roles", options.roles, ROLES),
    sources: strings("sources", options.sources),
    sessionId: options.sessionId,
    since: time("since", options.since),
    until: time("until", options.until),
  };
  const limit = Math.min(count("limit", options.limit, DEFAULT_SEARCH_LIMIT), MAX_SEARCH_LIMIT);
  return {
    filters,
    sort,
    page: { limit, offset: count("offset", options.offset, 0) },
    substring: options.substring === true,
  };
}
