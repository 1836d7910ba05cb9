/**
 * Search cursors (pure): the opaque `nextCursor` string a search returns and `search(q, {
 * cursor })` continues from. A cursor carries no hits, only where the walk stands:
 *
 * - `maxId`: the largest message id when the walk began. Every later page is bounded by it
 *   (pushed into the index as a rowid range), so messages appended while a caller pages never
 *   join the walk half-way.
 * - time order (`newest`/`oldest`): the last hit's (timestamp, id), a keyset — the next page
 *   starts right after it through the same index query, whatever was appended or deleted since.
 * - rank order: the last hit's (rank, id), valid only while the index is exactly as it was: bm25
 *   uses collection statistics (row count, average length, rows per term) that any write to the
 *   index changes, and then every rank moves. The cursor carries a stamp of the index's
 *   averages and structure records; while they are unchanged the next page seeks past the last
 *   (rank, id) on the index cursor itself (no row read, no snippet for what it skips). A first
 *   page's cursor has no rank (reading it would cost that page a second pass over its matches,
 *   see indexSearchSql): its next page takes the rank from the ranking it reads (ranked-walks.ts)
 *   or, when that cannot answer, skips the first page's hits by position. Once the
 *   index has been written, the walk goes on by position (hits returned so far, skipped by
 *   OFFSET), in the ranking as it is now — so under concurrent writes a rank walk can repeat or
 *   miss a hit whose rank crossed the page boundary; a walk in time order never does.
 *
 * A cursor belongs to one search: its fingerprint (the query, sort, substring flag and filters)
 * must match the search it is passed to, and anything else is refused with an InvalidInputError
 * naming `search.cursor` before any SQL runs.
 */
import { InvalidInputError } from "../errors.js";
import type { SearchFilters, SearchSort } from "./search-sql.js";

/** Where a walk stands. */
export interface SearchCursor {
  /** Fingerprint of the search it belongs to. */
  readonly fingerprint: string;
  /** The largest message id when the walk began. */
  readonly maxId: number;
  /** Hits returned so far (rank order). */
  readonly returned: number;
  /** The last hit's key (time order). */
  readonly after?: { readonly timestamp: number; readonly id: number };
  /** The last hit's rank and id, and the stamp of the index that ranked it (rank order on an
   * index route). */
  readonly rankAfter?: RankKey;
}

/** Where a rank walk stands in one state of one index. */
export interface RankKey {
  readonly stamp: string;
  /** Undefined after a first page, which does not read ranks. */
  readonly rank?: number;
  readonly id: number;
}

const PREFIX = "sdb1.";

/** FNV-1a over UTF-16 code units: short, stable across runtimes; a guard against passing a
 * cursor to another search or index state, not a secret. */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

/** What identifies a search for its cursors: everything but the page. */
export function searchFingerprint(
  query: string,
  sort: SearchSort,
  substring: boolean,
  filters: SearchFilters,
): string {
  const sorted = (values: readonly string[] | undefined) => (values ? [...values].sort() : null);
  return fnv1a(
    JSON.stringify([
      query,
      sort,
      substring,
      sorted(filters.roles),
      sorted(filters.sources),
      filters.sessionId ?? null,
      filters.since ?? null,
      filters.until ?? null,
    ]),
  );
}

/** base64url of ASCII text (btoa/atob exist on Node ≥ 16, Bun and Deno). */
const toBase64Url = (ascii: string) => btoa(ascii).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromBase64Url = (text: string) => atob(text.replace(/-/g, "+").replace(/_/g, "/"));

export function encodeCursor(cursor: SearchCursor): string {
  const body: unknown[] = [cursor.fingerprint, cursor.maxId, cursor.returned];
  if (cursor.after) body.push(cursor.after.timestamp, cursor.after.id);
  else if (cursor.rankAfter)
    body.push(cursor.rankAfter.stamp, cursor.rankAfter.rank ?? null, cursor.rankAfter.id);
  return PREFIX + toBase64Url(JSON.stringify(body));
}

const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** Decode and check a cursor given to a search with `fingerprint` and `sort`. */
export function decodeCursor(value: unknown, fingerprint: string, sort: SearchSort): SearchCursor {
  const field = "search.cursor";
  if (typeof value !== "string") throw new InvalidInputError(field, "expected a string (a nextCursor)");
  let body: unknown;
  try {
    if (!value.startsWith(PREFIX) || value.length > 200) throw new Error("not ours");
    body = JSON.parse(fromBase64Url(value.slice(PREFIX.length)));
  } catch {
    throw new InvalidInputError(field, "not a cursor a search returned");
  }
  const timeOrder = sort !== "rank";
  const valid =
    Array.isArray(body) &&
    typeof body[0] === "string" &&
    isId(body[1]) &&
    isId(body[2]) &&
    (timeOrder
      ? body.length === 5 && Number.isFinite(body[3]) && isId(body[4])
      : body.length === 3 ||
        (body.length === 6 &&
          typeof body[3] === "string" &&
          (body[4] === null || Number.isFinite(body[4])) &&
          isId(body[5])));
  if (!valid) throw new InvalidInputError(field, `not a cursor of a search sorted by ${sort}`);
  const b = body as unknown[];
  if (b[0] !== fingerprint) {
    throw new InvalidInputError(
      field,
      "belongs to another search: pass the same query, sort, substring flag and filters",
    );
  }
  return {
    fingerprint,
    maxId: b[1] as number,
    returned: b[2] as number,
    after: timeOrder ? { timestamp: b[3] as number, id: b[4] as number } : undefined,
    rankAfter:
      !timeOrder && b.length === 6
        ? { stamp: b[3] as string, rank: b[4] === null ? undefined : (b[4] as number), id: b[5] as number }
        : undefined,
  };
}
