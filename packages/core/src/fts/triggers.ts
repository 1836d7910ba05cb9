/**
 * Attaching and detaching the index (execution; callers supply the transaction). Detaching —
 * the stale breadcrumb plus dropping every FTS trigger, committed together — is how the index
 * steps aside: canonical writes no longer touch it and search answers by LIKE until a rebuild.
 */

import { exec, now, type Op, run } from "../engine/effects.js";
import { UPSERT_META_SQL } from "../schema/ddl.js";
import { META_FTS_STALE } from "./constants.js";
import { dropTriggerDdl, FTS_INDEXES, type FtsIndexDef, triggerDdl } from "./projection.js";

/** (Re)create the triggers of `defs` from this build's definition (a trigger left by an older
 * layout is replaced, not kept). Call only together with a rebuild or a backfill seed in the same
 * transaction: triggers over a partial index would 'delete' tokens that were never inserted. */
export function* publishTriggersOp(defs: readonly FtsIndexDef[]): Op<void> {
  for (const def of defs) {
    for (const ddl of dropTriggerDdl(def)) yield* exec(ddl);
    for (const ddl of triggerDdl(def)) yield* exec(ddl);
  }
}

/** Inside a transaction: write the stale breadcrumb and drop every FTS trigger. */
export function* detachIndexOp(reason: string): Op<void> {
  const crumb = JSON.stringify({ at: new Date(yield* now()).toISOString(), reason: reason.slice(0, 500) });
  yield* run(UPSERT_META_SQL, META_FTS_STALE, crumb);
  for (const def of FTS_INDEXES) for (const ddl of dropTriggerDdl(def)) yield* exec(ddl);
}
