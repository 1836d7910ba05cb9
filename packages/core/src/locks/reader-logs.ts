/**
 * The `-wal` and `-shm` that a read-only connection leaves beside a store. A WAL database's first
 * reader creates both files when they are missing, and only a connection that may checkpoint
 * deletes them when it closes last; a read-only one never may, so its close leaves an empty `-wal`
 * and a `-shm` beside a store that had neither. Code that must leave the store's folder as it
 * found it (repair's check, a read-only open that fails) notes the files before it opens the store
 * and takes back, once its connections are closed, those its own connections made. It does so
 * under the EXCLUSIVE lock (locks/exclusive.ts), which nobody can hold while any other connection,
 * in any process, has the store open: no one else uses the files, exactly as when SQLite's own last
 * close deletes them. A `-wal` or `-journal` that holds anything is left alone: it carries
 * transactions someone else wrote meanwhile.
 */
import { sqliteLogsBeside } from "../backup/sqlite-files.js";
import type { SqliteDriver } from "../driver.js";
import type { Host } from "../host/host.js";
import { lockExclusive } from "./exclusive.js";

/** The SQLite logs (`-wal`, `-shm`, `-journal`) beside `path` now, to give `removeLogsMadeSince`;
 * undefined when they cannot be looked at (a name too long for a suffix, a Deno allowed to read
 * the store file alone), and then none is taken back. */
export function logsBeside(host: Host, path: string): ReadonlySet<string> | undefined {
  try {
    return new Set(sqliteLogsBeside(host, path).map((log) => log.path));
  } catch {
    return undefined;
  }
}

/** Remove the logs beside `path` that were not among `found` (see the module comment). Never
 * throws: a log it cannot take back is left where it is, as SQLite leaves it. */
export function removeLogsMadeSince(
  driver: SqliteDriver,
  host: Host,
  path: string,
  found: ReadonlySet<string> | undefined,
): void {
  if (!found) return;
  const isNew = (log: { path: string }) => !found.has(log.path);
  try {
    if (!sqliteLogsBeside(host, path).some(isNew)) return;
    const exclusive = lockExclusive(driver, host, path);
    if (!exclusive.held) return;
    try {
      // Looked at under the lock: nobody can write a log while it is held.
      for (const log of sqliteLogsBeside(host, path).filter(isNew)) {
        if (log.path.endsWith("-shm") || host.stat(log.path)?.size === 0) host.remove(log.path);
      }
    } finally {
      exclusive.release();
    }
  } catch {
    // Left where they are: the store and its data are untouched either way.
  }
}
