/**
 * `store.checkIntegrity()`: PRAGMA integrity_check, then the FTS indexes' own check, each
 * problem typed by what it means for the caller (store/types.ts, IntegrityProblem). A check
 * that cannot even read because the file is damaged is itself a problem of that kind, not a
 * throw: the caller asked whether the store is sound, and this is the answer.
 */
import type { SqliteConnection } from "../driver.js";
import { hasResultCode, StoreCorruptError } from "../errors.js";
import { withPatience } from "../locks/patience.js";
import type { IntegrityProblem, IntegrityReport } from "./types.js";

/** Errors that mean "the file is damaged" rather than "something else went wrong". */
function readsAsCorrupt(error: unknown): boolean {
  return (
    error instanceof StoreCorruptError ||
    hasResultCode(error, "CORRUPT", "CORRUPT_VTAB", "NOTADB", "IOERR", "NOMEM")
  );
}

/** Run both checks on `conn`, waiting up to `budgetMs` for a lock like any write would. */
export function checkIntegrity(
  conn: SqliteConnection,
  budgetMs: number,
  ftsProblems: () => IntegrityProblem[],
): IntegrityReport {
  const problems: IntegrityProblem[] = [];
  const attempt = (kind: "database" | "fts-index", what: string, check: () => IntegrityProblem[]) => {
    try {
      problems.push(...check());
    } catch (error) {
      if (!readsAsCorrupt(error)) throw error;
      problems.push({ kind, message: `${what}: ${(error as Error).message}` });
    }
  };
  attempt("database", "integrity_check", () =>
    withPatience(
      () =>
        conn
          .prepare("PRAGMA integrity_check")
          .all()
          .map((row) => String(Object.values(row)[0]))
          .filter((line) => line !== "ok")
          .map((message): IntegrityProblem => ({ kind: "database", message })),
      { budgetMs, jitter: "write" },
    ),
  );
  attempt("fts-index", "FTS integrity", ftsProblems);
  return { ok: problems.length === 0, problems };
}
