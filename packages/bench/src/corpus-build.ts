/**
 * Building a corpus store fast, with the result the Store API would have built. Appending
 * through the Store with the FTS triggers live costs two index inserts per message and a commit
 * per batch (18 min for 1M messages on 2 busy cores). Here the store's own detached-index path
 * does the work instead: the FTS triggers are dropped (the store then counts its index as stale
 * and search answers by LIKE), every session and message goes in through the Store API in large
 * transactions — same calls, same order, so the same rows, ids and session counters — and
 * `store.rebuildFts()` rebuilds both indexes from the rows and puts the triggers back, as it
 * does for any stale index. corpus-build.test.ts checks the result against a store built the
 * slow way.
 */
import { buildStore, type CorpusSummary } from "./corpus/index.js";
import type { Engine } from "./engine.js";
import { now } from "./stats.js";

/** Messages per write transaction: ~35 MB of rows, few commits, a WAL that stays small. */
const PER_TRANSACTION = 20_000;

/** How long each step took (ms). */
export interface BuildTimes {
  rowsMs: number;
  rebuildMs: number;
  /** `store.checkIntegrity()` after the build, when asked for (undefined otherwise). */
  checkMs?: number;
}

export interface BulkBuildOptions {
  seed: number;
  messages: number;
  /** Run the store's integrity check on the result and fail unless it is clean. */
  check?: boolean;
}

/** Build the corpus into a new store at `path` with `engine`'s adapter. */
export function bulkBuild(
  engine: Engine,
  path: string,
  options: BulkBuildOptions,
): CorpusSummary & { times: BuildTimes } {
  engine.openStore(path).close(); // schema, indexes and triggers, as any new store
  detachIndex(engine, path);
  // A store whose triggers are missing repairs itself at open (a rebuild over no rows here,
  // but it would put the triggers back): not before the rows are in.
  const store = engine.openStore(path, { repairFtsOnOpen: false });
  try {
    const t0 = now();
    const summary = buildStore(
      { ...bind(store), transaction: <T>(fn: () => T): T => store.transaction(() => fn()) },
      { seed: options.seed, messages: options.messages, batch: 64, perTransaction: PER_TRANSACTION },
    );
    const t1 = now();
    const rebuilt = store.rebuildFts();
    if (!rebuilt.rebuilt) throw new Error(`rebuildFts did not rebuild the corpus: ${rebuilt.reason}`);
    const state = store.ftsStatus().state;
    if (state !== "ready") throw new Error(`the corpus index is ${state} after rebuildFts, expected ready`);
    const times: BuildTimes = { rowsMs: t1 - t0, rebuildMs: now() - t1 };
    if (options.check) {
      const t2 = now();
      const report = store.checkIntegrity();
      if (!report.ok)
        throw new Error(`the built corpus fails the integrity check: ${JSON.stringify(report)}`);
      times.checkMs = now() - t2;
    }
    return { ...summary, times };
  } finally {
    store.close();
  }
}

const bind = (store: ReturnType<Engine["openStore"]>) => ({
  createSession: store.createSession.bind(store),
  appendMessages: store.appendMessages.bind(store),
});

/** Drop every trigger that feeds an FTS index, in one transaction (what the store's own
 * detach does, minus the breadcrumb: missing triggers are enough for it to count the index as
 * stale and to rebuild it whole). Found by what they write to, not by name. */
function detachIndex(engine: Engine, path: string): void {
  const raw = engine.openRaw(path);
  try {
    const triggers = raw
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' AND sql LIKE '%INSERT INTO messages_fts%'",
      )
      .all()
      .map((row) => String(row.name));
    if (triggers.length === 0) throw new Error("the new store has no FTS triggers to detach");
    raw.exec("BEGIN IMMEDIATE");
    for (const name of triggers) raw.exec(`DROP TRIGGER "${name}"`);
    raw.exec("COMMIT");
  } finally {
    raw.close();
  }
}
