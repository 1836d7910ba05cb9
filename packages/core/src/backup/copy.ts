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
import { sqliteFileName } from "../sqlite-path.js";

/** How the copy was made. */
export type BackupMethod = "online-backup" | "vacuum-into";

/** Pages per backup step while nobody else writes: 4 MiB of 4 KiB pages, a few milliseconds of
 * read lock per step, progress several times a second on a large store. */
const STEP_PAGES = 1024;

/** One step for the whole database: the most the bindings accept (a signed 32-bit count). */
const ALL_PAGES = 0x7fffffff;

/**
 * Copy with the online backup API from `conn`, which holds one read snapshot of the store for
 * the whole copy (backup.ts), so no other connection's commit makes SQLite start over. In WAL
 * mode the copy goes in steps with progress between them, and each step's pages are flushed to
 * the disk before the next (`flush`): left to the end, the whole copy (hundreds of MB) reached
 * the disk in one flush that other processes' commits queued behind — on ext4 a commit's fsync
 * waits for the file system's journal, which waits for that flood. A writer appending next to
 * back-to-back backups of a 350 MB store had a p99 of 114–125 ms; flushing every 4 MiB step,
 * 25–36 ms, for about the same copy time. In DELETE mode the snapshot's read lock keeps every
 * writer's commit waiting — this process's own writes too, which cannot run while the copy holds
 * the thread between steps — so the copy is one step, as short as it can be.
 */
export async function onlineCopy(
  driver: SqliteDriver & Required<Pick<SqliteDriver, "backup">>,
  conn: SqliteConnection,
  target: string,
  options: {
    stepped: boolean;
    onPages?: (progress: BackupPageProgress) => void;
    signal?: AbortSignal;
    flush?: () => void;
  },
): Promise<void> {
  options.signal?.throwIfAborted();
  await driver.backup(conn, target, {
    pagesPerStep: options.stepped ? STEP_PAGES : ALL_PAGES,
    onStep(progress) {
      options.signal?.throwIfAborted();
      if (options.stepped) options.flush?.();
      options.onPages?.(progress);
    },
  });
}

/** Copy with `VACUUM INTO` into `target` (absent or empty); SQLite attaches it, so a name that
 * reads as a URI would be one on a connection opened with URIs enabled. */
export function vacuumInto(conn: SqliteConnection, target: string): void {
  conn.prepare("VACUUM INTO ?").run(sqliteFileName(target));
}
