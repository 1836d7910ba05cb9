/**
 * Ranked lists kept between the pages of a rank walk (pure, in process). FTS5 computes bm25 for
 * every match before it returns the first one, so a rank page found by seeking past the last
 * (rank, id) still ranks the whole result again (see cursor.ts). A walk's first cursor page
 * instead reads the whole ranking once — ids and ranks only, no row, no snippet — and every
 * later page of the same walk takes its ids from that list and reads only its own rows.
 *
 * A list belongs to one search (fingerprint), one state of one index (the cursor's stamp) and
 * one walk bound (`maxId`): it is only ever used while the index's stamp is the one it was read
 * under, which is exactly when the ranking a fresh query would compute is the same. Anything
 * else — another process's cursor, an evicted list, a changed index — reads the ranking again
 * or walks on as cursor.ts describes, so keeping a list changes costs, never results.
 *
 * Memory is bounded: at most RANKED_WALK_MAX_LISTS lists of at most RANKED_WALK_MAX_HITS hits
 * in all (16 bytes a hit: id and rank as doubles), least recently used out first; a ranking
 * longer than that is kept as its first RANKED_WALK_MAX_HITS hits, and pages past them seek.
 */
import { RANKED_WALK_MAX_HITS, RANKED_WALK_MAX_LISTS } from "./constants.js";

/** One ranking: ids and their ranks, best first. */
export interface RankedList {
  readonly ids: Float64Array;
  readonly ranks: Float64Array;
  /** False when the ranking went on past the last id kept. */
  readonly complete: boolean;
}

/** What identifies a list: the search, the index state, the walk's id bound. */
export interface RankedListKey {
  readonly fingerprint: string;
  /** The index's stamp (cursor.ts): `<table>:<hash>`. */
  readonly stamp: string;
  readonly maxId: number;
}

interface Entry {
  readonly key: RankedListKey;
  readonly list: RankedList;
}

const keyText = (key: RankedListKey) => `${key.fingerprint}|${key.stamp}|${key.maxId}`;
const tableOf = (stamp: string) => stamp.slice(0, stamp.indexOf(":"));

/** The lists of one connection, least recently used first. */
export class RankedWalks {
  private readonly entries = new Map<string, Entry>();
  private hits = 0;

  constructor(
    private readonly maxLists = RANKED_WALK_MAX_LISTS,
    /** Hits over every list; also the most one ranking keeps. */
    readonly maxHits = RANKED_WALK_MAX_HITS,
  ) {}

  /** The list of `key`, now the most recently used. */
  get(key: RankedListKey): RankedList | undefined {
    const text = keyText(key);
    const entry = this.entries.get(text);
    if (!entry) return undefined;
    this.entries.delete(text);
    this.entries.set(text, entry);
    return entry.list;
  }

  /** Keep `list` under `key`. Lists of an older state of the same index go first (they can
   * never be used again), then the least recently used until both bounds hold. */
  put(key: RankedListKey, list: RankedList): void {
    if (list.ids.length > this.maxHits) return;
    this.delete(key);
    const table = tableOf(key.stamp);
    for (const [text, entry] of this.entries) {
      if (tableOf(entry.key.stamp) === table && entry.key.stamp !== key.stamp) this.drop(text, entry);
    }
    for (const [text, entry] of this.entries) {
      if (this.entries.size < this.maxLists && this.hits + list.ids.length <= this.maxHits) break;
      this.drop(text, entry);
    }
    this.entries.set(keyText(key), { key, list });
    this.hits += list.ids.length;
  }

  /** Keep, under `key`, a list that answers no page: its rows did not match what it said, so
   * the walk seeks from here on instead of reading the same ranking again for every page. */
  refuse(key: RankedListKey): void {
    this.put(key, { ids: new Float64Array(0), ranks: new Float64Array(0), complete: false });
  }

  /** Forget `key`'s list (its walk ended). */
  delete(key: RankedListKey): void {
    const text = keyText(key);
    const entry = this.entries.get(text);
    if (entry) this.drop(text, entry);
  }

  /** Lists and hits kept (for tests). */
  get size(): { lists: number; hits: number } {
    return { lists: this.entries.size, hits: this.hits };
  }

  private drop(text: string, entry: Entry): void {
    this.entries.delete(text);
    this.hits -= entry.list.ids.length;
  }
}

/**
 * Where a walk goes on in `list`: after the cursor's last hit, which is at position
 * `returned - 1` when the walk's pages all came from this ranking (the usual case), or found by
 * its id. Undefined when the list does not hold it (a prefix that stops before it).
 */
export function resumeAt(list: RankedList, returned: number, lastId: number): number | undefined {
  if (list.ids[returned - 1] === lastId) return returned;
  const at = list.ids.indexOf(lastId);
  return at < 0 ? undefined : at + 1;
}
