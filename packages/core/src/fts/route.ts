/**
 * Which route answers a search (pure). The rule behind every branch: never silently miss.
 * An index answers only when it holds everything the query could match; otherwise LIKE scans
 * the canonical rows, or tops the index up over the id window it does not hold yet.
 */
import { TRIGRAM_MIN_CHARS } from "./constants.js";
import { charLength, hasCjk, type ParsedQuery, queryTerms } from "./query.js";
import type { IdWindow } from "./search-sql.js";
import type { BackfillWindow } from "./state.js";

/** Which route served a search. "fts+like": an index (word or trigram) plus a LIKE scan of the
 * id window a running backfill has not reached yet. */
export type SearchRoute = "fts" | "trigram" | "like" | "fts+like";

/** What the router needs to know. */
export interface RouteInput {
  query: ParsedQuery;
  roles: readonly string[] | undefined;
  substring: boolean;
  /** The base index exists and is trusted (not stale, triggers complete). */
  baseUsable: boolean;
  /** The trigram index exists and is trusted. */
  trigramUsable: boolean;
  /** This SQLite's trigram tokenizer indexes text after a NUL character (older ones stop). */
  trigramReadsPastNul: boolean;
  /** The running backfill, if any. */
  backfill: BackfillWindow | undefined;
}

/** The decision: which index (if any), and the id window LIKE must add. */
export interface RoutePlan {
  route: SearchRoute;
  index: "base" | "trigram" | undefined;
  /** Rows with ids in `(after, upTo]` are not indexed yet and are scanned with LIKE. */
  topUp: IdWindow | undefined;
  /** Why this route, for diagnostics and tests. */
  reason: string;
}

const like = (reason: string): RoutePlan => ({ route: "like", index: undefined, topUp: undefined, reason });

/**
 * Decide the route. Tool rows index only their first TOOL_CONTENT_PREFIX_CHARS characters and the
 * trigram index holds no tool rows at all, so any search whose role filter includes "tool" scans
 * full content with LIKE. Unfiltered searches use the index and find tool rows by their prefix.
 */
export function chooseRoute(input: RouteInput): RoutePlan {
  if (!input.baseUsable) return like("the index is stale, missing or unavailable");
  if (input.roles?.includes("tool")) return like("tool rows are indexed by prefix only");
  let index: "base" | "trigram" = "base";
  if (input.substring || hasCjk(input.query)) {
    if (!input.trigramUsable) return like("substring/CJK search without a trigram index");
    if (!input.trigramReadsPastNul)
      return like("this SQLite's trigram tokenizer stops at a NUL character: text after one is not indexed");
    const short = queryTerms(input.query).some((t) => charLength(t.text) < TRIGRAM_MIN_CHARS);
    if (short) return like("a term shorter than 3 characters cannot use the trigram index");
    index = "trigram";
  }
  const window = input.backfill;
  if (window && window.progress < window.highWater) {
    return {
      route: "fts+like",
      index,
      topUp: { after: window.progress, upTo: window.highWater },
      reason: "a backfill is running",
    };
  }
  return { route: index === "base" ? "fts" : "trigram", index, topUp: undefined, reason: "index" };
}
