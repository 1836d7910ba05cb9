/**
 * Putting a finished database file in place: private mode, its bytes on disk, one atomic rename,
 * the folder entry on disk. Only ever used on files this process wrote under a temporary name —
 * never on a live store (closing a descriptor of a store drops the process's SQLite locks on it).
 */
import { STORE_FILE_MODE } from "../constants.js";
import { dirnameOf, type Host } from "../host/host.js";

/** A temporary name beside `destination`, so the final rename stays on one file system. */
export function temporaryName(destination: string, pid: number): string {
  return `${destination}.tmp-${pid}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Make `temporary` durable and private, then rename it to `destination` and sync the folder. */
export function publishFile(host: Host, temporary: string, destination: string): void {
  host.chmod(temporary, STORE_FILE_MODE);
  host.syncFile(temporary);
  host.rename(temporary, destination);
  host.syncDirectory(dirnameOf(destination));
}

/** Remove a database file this process wrote and any journal SQLite left beside it. */
export function removeDatabaseFile(host: Host, path: string): void {
  for (const file of [path, `${path}-journal`, `${path}-wal`, `${path}-shm`]) host.remove(file);
}
