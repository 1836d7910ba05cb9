/**
 * FTS integrity for `checkIntegrity`: FTS5 'integrity-check' with rank 1 (the index compared
 * with its source view, token by token) and docsize count = source view count, per index.
 * During a backfill the pending window is legitimately missing, so the index is checked on its
 * own (rank 0) and counted over the ids it is responsible for. A detached (stale) index is a
 * problem in itself: it says what to run.
 * Another connection holding the write lock (the check is an INSERT command) is contention, not
 * a finding: it is thrown, so the caller's patience waits for it and then reports StoreBusyError.
 */
import { get, type Op, run } from "../engine/effects.js";
import { isContention } from "../errors.js";
import type { IntegrityProblem } from "../model/types.js";
import { policy } from "../policy/calls.js";
import { rankCommandSql } from "./projection.js";
import { backfillWindow, isStale, loadSnapshot, presentIndexes } from "./state.js";

const text = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The problem `checkIntegrity` reports for a detached (stale) index: not corruption. */
const DETACHED: IntegrityProblem = {
  kind: "fts-detached",
  message: `FTS index is detached (stale) and search answers by LIKE; run "sessiondb fts rebuild" (store.rebuildFts()) to restore it`,
};

/** Problems found in the FTS indexes; empty when they are sound (or FTS5 is not available). */
export function* ftsIntegrityProblems(): Op<IntegrityProblem[]> {
  const { readOnly } = yield* policy();
  const snap = yield* loadSnapshot();
  const defs = presentIndexes(snap);
  if (defs.length === 0) return [];
  if (isStale(snap)) return [DETACHED];
  const window = backfillWindow(snap.meta);
  const problems: IntegrityProblem[] = [];
  for (const def of defs) {
    try {
      // The check is an INSERT of a special command, which a read-only connection refuses;
      // read-only opens still get the docsize comparison below.
      if (!readOnly) yield* run(rankCommandSql(def, "integrity-check"), window ? 0 : 1);
    } catch (error) {
      if (isContention(error)) throw error;
      problems.push({
        kind: "fts-index",
        index: def.table,
        message: `${def.table}: FTS5 integrity-check failed: ${text(error)}`,
      });
      continue;
    }
    // Outside a pending window every source row must have exactly one docsize row.
    const range = window ? "WHERE id <= ? OR id > ?" : "";
    const params = window ? [window.progress, window.highWater] : [];
    // Both counts in one statement: one read snapshot, so live writers cannot skew them apart.
    const counts = yield* get(
      `SELECT (SELECT count(*) FROM ${def.table}_docsize ${range}) AS docs, (SELECT count(*) FROM ${def.view} ${range}) AS rows`,
      ...params,
      ...params,
    );
    const docs = Number(counts?.docs);
    const rows = Number(counts?.rows);
    if (docs !== rows) {
      problems.push({
        kind: "fts-index",
        index: def.table,
        message: `${def.table}: ${docs} indexed rows, but its source view ${def.view} has ${rows}`,
      });
    }
  }
  return problems;
}
