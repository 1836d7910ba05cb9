/**
 * What the index knows about itself: its state_meta markers and which FTS objects exist, read
 * in one query, and the pure decisions taken from them (ready, backfilling, stale, repair).
 */
import type { Row } from "../driver.js";
import { all, allUntilChange, type Op } from "../engine/effects.js";
import {
  META_BACKFILL_HIGH_WATER,
  META_BACKFILL_PROGRESS,
  META_FTS_STALE,
  META_TRIGRAM_UNAVAILABLE,
} from "./constants.js";
import {
  BASE_INDEX,
  earlierProjections,
  type FtsIndexDef,
  storedDdl,
  TRIGRAM_INDEX,
  triggerNames,
} from "./projection.js";

/** The index's own state_meta keys. */
export const FTS_STATE_KEYS: readonly string[] = [
  META_FTS_STALE,
  META_BACKFILL_HIGH_WATER,
  META_BACKFILL_PROGRESS,
  META_TRIGRAM_UNAVAILABLE,
];

/** A running backfill's id window: rows in `(progress, highWater]` are not indexed yet. */
export interface BackfillWindow {
  highWater: number;
  progress: number;
}

/** The index's markers and objects at one moment. */
export interface FtsSnapshot {
  /** FTS state keys present in state_meta. */
  readonly meta: ReadonlyMap<string, string>;
  /** Names of the FTS tables, views and triggers that exist. */
  readonly objects: ReadonlySet<string>;
  /** Those of them (views, triggers) whose SQL is not this build's: another build's projection. */
  readonly outdated: ReadonlySet<string>;
}

const OBJECT_NAMES = [BASE_INDEX, TRIGRAM_INDEX].flatMap((def) => [
  def.table,
  def.view,
  ...triggerNames(def),
]);
const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");

/** Each object's name and, for views and triggers, its SQL as this build stores it (null for the
 * FTS5 tables: their DDL is not compared). */
function expectedObjects(): Array<readonly [string, string | null]> {
  const stored = new Map([BASE_INDEX, TRIGRAM_INDEX].flatMap((def) => storedDdl(def)));
  return OBJECT_NAMES.map((name) => [name, stored.get(name) ?? null]);
}

const literal = (text: string | null) => (text === null ? "NULL" : `'${text.replaceAll("'", "''")}'`);

/** One query for markers and objects (sqlite_master is read from the schema cache: cheap); an
 * object's value is 0 when its SQL is another build's. The expected SQL is part of the statement
 * (prepared once per connection), not bound on every call. Built on the first snapshot rather
 * than at load: a process that loads the core and never opens a store does not pay for it. */
function snapshotSql(): string {
  snapshotText ??= `SELECT 'meta' AS kind, key AS name, value FROM state_meta WHERE key IN (${placeholders(FTS_STATE_KEYS.length)}) UNION ALL SELECT 'object', m.name, coalesce(m.sql = e.column2, 1) FROM sqlite_master m JOIN (VALUES ${expectedObjects()
    .map(([name, sql]) => `(${literal(name)}, ${literal(sql)})`)
    .join(", ")}) e ON m.name = e.column1`;
  return snapshotText;
}
let snapshotText: string | undefined;
const SNAPSHOT_PARAMS: readonly string[] = FTS_STATE_KEYS;

/** Which of the views and triggers `names` hold SQL an earlier build stored (earlierProjections()):
 * an index this build upgrades, where SQL it does not know is a newer build's and left alone. */
export function* earlierProjectionObjects(names: readonly string[]): Op<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = yield* all(
    `SELECT name, sql FROM sqlite_master WHERE name IN (${placeholders(names.length)})`,
    ...names,
  );
  return new Set(
    rows
      .filter((row) => earlierProjections().get(String(row.name))?.has(String(row.sql)) === true)
      .map((row) => String(row.name)),
  );
}

/** The snapshot, as an operation. Read at the start of every search: a sync store answers it
 * from its last read while the database has not changed (engine/unchanged-reads.ts), and the
 * snapshot made of those rows is made once. */
export function* loadSnapshot(): Op<FtsSnapshot> {
  const rows = yield* allUntilChange(snapshotSql(), ...SNAPSHOT_PARAMS);
  let snapshot = snapshots.get(rows);
  if (!snapshot) {
    snapshot = toSnapshot(rows);
    snapshots.set(rows, snapshot);
  }
  return snapshot;
}

/** The snapshot of each rows array the runner answered (the same array while nothing changed). */
const snapshots = new WeakMap<Row[], FtsSnapshot>();

function toSnapshot(rows: Row[]): FtsSnapshot {
  const meta = new Map<string, string>();
  const objects = new Set<string>();
  const outdated = new Set<string>();
  for (const row of rows) {
    if (row.kind === "meta") meta.set(String(row.name), String(row.value));
    else {
      objects.add(String(row.name));
      if (Number(row.value) === 0) outdated.add(String(row.name));
    }
  }
  return { meta, objects, outdated };
}

const integer = (text: string | undefined) =>
  text !== undefined && /^-?\d+$/.test(text.trim()) ? Number(text) : undefined;

/** The backfill window, or undefined when no (valid) backfill is pending. */
export function backfillWindow(meta: ReadonlyMap<string, string>): BackfillWindow | undefined {
  const highWater = integer(meta.get(META_BACKFILL_HIGH_WATER));
  const progress = integer(meta.get(META_BACKFILL_PROGRESS));
  if (highWater === undefined || progress === undefined) return undefined;
  return { highWater, progress };
}

/** True when the backfill markers are inconsistent (an orphaned or unreadable key). */
export function backfillMarkersBroken(meta: ReadonlyMap<string, string>): boolean {
  const hw = meta.get(META_BACKFILL_HIGH_WATER);
  const progress = meta.get(META_BACKFILL_PROGRESS);
  if (hw === undefined && progress === undefined) return false;
  return integer(hw) === undefined || integer(progress) === undefined;
}

/** True when the FTS state read at open calls for the slow path / repair (stale breadcrumb, orphaned backfill marker, …). */
export function ftsNeedsRepair(state: ReadonlyMap<string, string>): boolean {
  return state.has(META_FTS_STALE) || backfillMarkersBroken(state);
}

/** True when `def`'s table exists. */
export function hasIndex(snapshot: FtsSnapshot, def: FtsIndexDef): boolean {
  return snapshot.objects.has(def.table);
}

/** True when every trigger of `def` exists. */
export function triggersComplete(snapshot: FtsSnapshot, def: FtsIndexDef): boolean {
  return triggerNames(def).every((name) => snapshot.objects.has(name));
}

/** The indexes this store has (the trigram one soft-fails on old SQLite). */
export function presentIndexes(snapshot: FtsSnapshot): FtsIndexDef[] {
  return [BASE_INDEX, TRIGRAM_INDEX].filter((def) => hasIndex(snapshot, def));
}

/**
 * Trigger completeness, measured separately per index: the base set must be whole, and the
 * trigram set only when the trigram table exists — a store on a SQLite without trigram is
 * complete with the base set alone and never "repairs" itself on every open.
 */
export function triggersMissing(snapshot: FtsSnapshot): boolean {
  return presentIndexes(snapshot).some((def) => !triggersComplete(snapshot, def));
}

/** True when a view or trigger of a present index is another build's: what it indexed (or
 * indexes) is not what this build's projection says. */
export function projectionOutdated(snapshot: FtsSnapshot): boolean {
  return presentIndexes(snapshot).some((def) =>
    [def.view, ...triggerNames(def)].some((name) => snapshot.outdated.has(name)),
  );
}

/** True when the index is stale only because a build this one does not know (a newer one) made
 * its view or triggers: this build reads it by LIKE but does not rebuild it on its own, or two
 * builds of a rolling upgrade would take turns rebuilding it. (An earlier build's are replaced
 * at the upgrade, which leaves the index detached: stale for a reason of its own.) */
export function staleOnlyByProjection(snapshot: FtsSnapshot): boolean {
  return projectionOutdated(snapshot) && !snapshot.meta.has(META_FTS_STALE) && !triggersMissing(snapshot);
}

/** True when the index cannot be trusted: detached (breadcrumb), its triggers missing, or built
 * by another build's projection. Asked by every search of a snapshot the store keeps while
 * nothing changes: decided once per snapshot (the names it compares are built on each call). */
export function isStale(snapshot: FtsSnapshot): boolean {
  let stale = staleness.get(snapshot);
  if (stale === undefined) {
    stale = snapshot.meta.has(META_FTS_STALE) || triggersMissing(snapshot) || projectionOutdated(snapshot);
    staleness.set(snapshot, stale);
  }
  return stale;
}

const staleness = new WeakMap<FtsSnapshot, boolean>();
