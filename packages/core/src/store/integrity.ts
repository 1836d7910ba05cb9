/**
 * `store.checkIntegrity()`: PRAGMA integrity_check and foreign_key_check, then the FTS indexes'
 * own check, each problem typed by what it means for the caller (model/types.ts,
 * IntegrityProblem). A check
 * that cannot even read because the file is damaged is itself a problem of that kind, not a
 * throw: the caller asked whether the store is sound, and this is the answer.
 */
import { all, guard, type Op, patient, read } from "../engine/effects.js";
import { hasResultCode, StoreCorruptError } from "../errors.js";
import { ftsIntegrityProblems } from "../fts/integrity.js";
import type { IntegrityProblem, IntegrityReport } from "../model/types.js";
import { policy } from "./policy.js";

/** Errors that mean "the file is damaged" rather than "something else went wrong". */
function readsAsCorrupt(error: unknown): boolean {
  return (
    error instanceof StoreCorruptError ||
    hasResultCode(error, "CORRUPT", "CORRUPT_VTAB", "NOTADB", "IOERR", "NOMEM")
  );
}

/** Run both checks, waiting for a lock like any write would. */
export function* checkIntegrity(): Op<IntegrityReport> {
  yield* guard("open");
  const { patience } = yield* policy();
  const problems: IntegrityProblem[] = [];
  problems.push(
    ...(yield* attempt("database", "integrity_check", () =>
      patient(databaseProblems, { budgetMs: patience.writeMs, jitter: "write" }),
    )),
  );
  // integrity_check does not look at foreign keys: a row whose session_id bytes were changed on
  // disk reads as a sound row of a session that does not exist.
  problems.push(...(yield* attempt("database", "foreign_key_check", orphanRows)));
  problems.push(...(yield* attempt("fts-index", "FTS integrity", () => read(ftsIntegrityProblems))));
  return { ok: problems.length === 0, problems };
}

/** `check`'s problems; a failure that reads as damage is itself a problem of `kind`. */
function* attempt(
  kind: "database" | "fts-index",
  what: string,
  check: () => Op<IntegrityProblem[]>,
): Op<IntegrityProblem[]> {
  try {
    return yield* check();
  } catch (error) {
    if (!readsAsCorrupt(error)) throw error;
    return [{ kind, message: `${what}: ${(error as Error).message}` }];
  }
}

function* databaseProblems(): Op<IntegrityProblem[]> {
  return (yield* all("PRAGMA integrity_check"))
    .map((row) => String(Object.values(row)[0]))
    .filter((line) => line !== "ok")
    .map((message): IntegrityProblem => ({ kind: "database", message }));
}

function* orphanRows(): Op<IntegrityProblem[]> {
  return (yield* all("PRAGMA foreign_key_check")).map((row): IntegrityProblem => {
    const table = String(row.table);
    const rowid = Number(row.rowid);
    const parent = String(row.parent);
    return {
      kind: "orphan-row",
      table,
      rowid,
      parent,
      message: `${table} row ${rowid} refers to a row of ${parent} that does not exist`,
    };
  });
}
