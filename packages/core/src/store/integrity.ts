/**
 * `store.checkIntegrity()`: PRAGMA integrity_check and foreign_key_check, then the FTS indexes'
 * own check, each problem typed by what it means for the caller (model/types.ts,
 * IntegrityProblem). A check
 * that cannot even read because the file is damaged is itself a problem of that kind, not a
 * throw: the caller asked whether the store is sound, and this is the answer.
 */
import { all, type Op } from "../engine/effects.js";
import { hasResultCode, StoreCorruptError } from "../errors.js";
import { ftsIntegrityProblems } from "../fts/integrity.js";
import type { IntegrityProblem, IntegrityReport } from "../model/types.js";
import { guard, patient, policy, read } from "../policy/calls.js";
import { classifyFailure, readPatience } from "../policy/state.js";

/** Errors that mean "the file is damaged" rather than "something else went wrong". */
function readsAsCorrupt(error: unknown): boolean {
  return (
    error instanceof StoreCorruptError ||
    hasResultCode(error, "CORRUPT", "CORRUPT_VTAB", "NOTADB", "IOERR", "NOMEM")
  );
}

/**
 * Run the checks, each one a statement of its own and so each waiting for the lock with the
 * store's read patience: a writer may take its lock between two of them (in DELETE mode a
 * writer's PENDING or EXCLUSIVE lock keeps every reader out), and a killed one may leave a hot
 * rollback journal that a read-only store must wait for a writable connection to roll back.
 * Either way the call waits, then throws StoreBusyError, never the engine's bare SQLITE_BUSY.
 */
export function* checkIntegrity(): Op<IntegrityReport> {
  yield* guard("open");
  const problems: IntegrityProblem[] = [];
  problems.push(...(yield* databaseCheck("integrity_check", databaseProblems)));
  // integrity_check does not look at foreign keys: a row whose session_id bytes were changed on
  // disk reads as a sound row of a session that does not exist.
  problems.push(...(yield* databaseCheck("foreign_key_check", orphanRows)));
  // A read (read patience, failures classified) already: the FTS check runs several statements.
  problems.push(...(yield* checked("fts-index", "FTS integrity", () => read(ftsIntegrityProblems))));
  return { ok: problems.length === 0, problems };
}

/** `check` run with the store's read patience (see checkIntegrity), its failure classified as
 * a read's is, except that damage is reported as a problem (not made the store's sticky
 * corruption: the caller asked whether the store is sound, and may go on to repair it). */
function* databaseCheck(what: string, check: () => Op<IntegrityProblem[]>): Op<IntegrityProblem[]> {
  const state = yield* policy();
  try {
    return yield* checked("database", what, () =>
      patient(check, readPatience(state, state.patience.writeMs, "write")),
    );
  } catch (error) {
    throw classifyFailure(state, error);
  }
}

/** `check`'s problems; a failure that reads as damage is itself a problem of `kind`. */
function* checked(
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
