/**
 * Creating the FTS objects inside the Store's init transaction: the source views and both FTS5
 * tables, IF NOT EXISTS. No triggers and no rebuild here — publishing triggers over an index that
 * is not complete would corrupt it, so that happens at repair (under the admission lock) or when
 * a backfill is seeded. A SQLite without FTS5 leaves the store working with LIKE search; one
 * without the trigram tokenizer loses only that index, and the failure is recorded so later
 * opens on the same SQLite do not try again. An index without triggers gets the stale
 * breadcrumb, so `ftsNeedsRepair` sends the next open to repair even after a crash.
 */
import { exec, get, now, type Op, run } from "../engine/effects.js";
import { SqliteError } from "../errors.js";
import { DELETE_META_SQL, UPSERT_META_SQL } from "../schema/ddl.js";
import { META_FTS_STALE, META_TRIGRAM_UNAVAILABLE } from "./constants.js";
import {
  BASE_INDEX,
  dropTriggerDdl,
  type FtsIndexDef,
  TRIGRAM_INDEX,
  tableDdl,
  triggerNames,
  viewDdl,
} from "./projection.js";
import { earlierProjectionObjects, loadSnapshot, triggersMissing } from "./state.js";

/** What install found. */
export interface InstallOutcome {
  /** FTS5 is available and the word index exists. */
  fts5: boolean;
  /** The trigram index exists. */
  trigram: boolean;
  /** Why an index could not be created. */
  problems: string[];
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Run `ddl`; a plain SQLite ERROR (no such module / tokenizer) is returned, anything else thrown. */
function* tryDdl(ddl: string): Op<string | undefined> {
  try {
    yield* exec(ddl);
    return undefined;
  } catch (error) {
    // BUSY/LOCKED, READONLY, CORRUPT, … belong to the caller's init (patience, classification).
    if (error instanceof SqliteError && error.resultCode === "ERROR") return message(error);
    throw error;
  }
}

/**
 * An index an earlier build made (its projection — what a row contributes — changed since) loses
 * its triggers, and its view is replaced when that changed too: the index no longer matches this
 * build's projection, so it is rebuilt — the missing triggers leave the stale breadcrumb below,
 * and the next writable open (or `rebuildFts`) rebuilds it while search answers by LIKE. Rows
 * already indexed are not touched: a rebuild starts by emptying the index. A view or trigger of a
 * build this one does not know (a newer one) is left as it is; reads treat that index as stale.
 */
function* replaceEarlierProjection(def: FtsIndexDef): Op<void> {
  const earlier = yield* earlierProjectionObjects([def.view, ...triggerNames(def)]);
  if (earlier.size === 0) return;
  for (const statement of dropTriggerDdl(def)) yield* exec(statement);
  if (earlier.has(def.view)) yield* exec(`DROP VIEW ${def.view}`);
}

function* exists(name: string): Op<boolean> {
  return (yield* get("SELECT 1 FROM sqlite_master WHERE name = ?", name)) !== undefined;
}

/** Create views and FTS5 tables; call inside the init transaction. */
export function* installFts(): Op<InstallOutcome> {
  const problems: string[] = [];
  // The views only need `messages`; they exist even without FTS5 (they are the projection's
  // single definition, and the fingerprint includes them).
  for (const def of [BASE_INDEX, TRIGRAM_INDEX]) {
    yield* replaceEarlierProjection(def);
    yield* exec(viewDdl(def));
  }

  const baseProblem = yield* tryDdl(tableDdl(BASE_INDEX));
  if (baseProblem) return { fts5: false, trigram: false, problems: [`FTS5 unavailable: ${baseProblem}`] };

  if (!(yield* exists(TRIGRAM_INDEX.table))) {
    const version = String((yield* get("SELECT sqlite_version() AS v"))?.v ?? "");
    const recorded = yield* get("SELECT value FROM state_meta WHERE key = ?", META_TRIGRAM_UNAVAILABLE);
    // Retry only on a different SQLite: the same build fails the same way every time.
    if (recorded && String(recorded.value).startsWith(`${version}:`)) {
      problems.push(`trigram index unavailable: ${String(recorded.value)}`);
    } else {
      const trigramProblem = yield* tryDdl(tableDdl(TRIGRAM_INDEX));
      if (trigramProblem) {
        yield* run(UPSERT_META_SQL, META_TRIGRAM_UNAVAILABLE, `${version}: ${trigramProblem}`);
        problems.push(`trigram index unavailable: ${trigramProblem}`);
      }
    }
  }
  const trigram = yield* exists(TRIGRAM_INDEX.table);
  if (trigram) yield* run(DELETE_META_SQL, META_TRIGRAM_UNAVAILABLE);
  // A new index (fresh store, or trigram arriving with a newer SQLite) has no triggers yet and
  // must be built by repair. The breadcrumb says so in state_meta, which the Store's one-query
  // fast path reads: a crash before the repair finishes is seen by the next open.
  const snap = yield* loadSnapshot();
  if (triggersMissing(snap) && !snap.meta.has(META_FTS_STALE)) {
    const crumb = JSON.stringify({
      at: new Date(yield* now()).toISOString(),
      reason: "the FTS index has not been built yet",
    });
    yield* run(UPSERT_META_SQL, META_FTS_STALE, crumb);
  }
  return { fts5: true, trigram, problems };
}
