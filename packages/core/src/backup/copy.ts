/**
 * The two ways SQLite copies a live database consistently, whatever other processes write
 * meanwhile:
 * - the online backup API (`sqlite3_backup_*`), where the binding exposes it: copies pages as
 *   they are, in steps, so progress can be reported and the copy aborted between steps;
 * - `VACUUM INTO` (SQLite ≥ 3.27) everywhere else: one statement in one read transaction that
 *   writes a compacted copy. It never takes a write lock; in WAL mode writers go on committing.
 * Neither ever reads the store file behind SQLite's back.
 */
import type { BackupPageProgress, SqliteConnection, SqliteDriver } from "../driver.js";

/** How the copy was made. */
export type BackupMethod = "online-backup" | "vacuum-into";

/** Pages per backup step while nobody else writes: 4 MiB of 4 KiB pages, a few milliseconds of
 * read lock per step, progress several times a second on a large store. */
const STEP_PAGES = 1024;

/** One step for the whole database: the most the bindings accept (a signed 32-bit count). */
const ALL_PAGES = 0x7fffffff;

/** Thrown from the step callback when SQLite restarted the copy. */
const RESTARTED = Symbol("backup restarted");

/**
 * Copy with the online backup API. A write by another connection between two steps makes SQLite
 * start over, and a steady writer would keep a stepped copy from ever finishing; so after the
 * first restart the copy is redone in one step (one read transaction, like `VACUUM INTO`).
 */
export async function onlineCopy(
  driver: SqliteDriver & Required<Pick<SqliteDriver, "backup">>,
  conn: SqliteConnection,
  target: string,
  options: { onPages?: (progress: BackupPageProgress) => void; signal?: AbortSignal },
): Promise<void> {
  const run = (pagesPerStep: number) => {
    let remaining = Number.POSITIVE_INFINITY;
    return driver.backup(conn, target, {
      pagesPerStep,
      onStep(progress) {
        options.signal?.throwIfAborted();
        if (progress.remainingPages > remaining) throw RESTARTED;
        remaining = progress.remainingPages;
        options.onPages?.(progress);
      },
    });
  };
  options.signal?.throwIfAborted();
  try {
    await run(STEP_PAGES);
  } catch (error) {
    if (error !== RESTARTED) throw error;
    await run(ALL_PAGES);
  }
}

/** Copy with `VACUUM INTO` into `target` (absent or empty). */
export function vacuumInto(conn: SqliteConnection, target: string): void {
  conn.prepare("VACUUM INTO ?").run(target);
}
