/**
 * Where a backup (or a repaired store) may be written: never over the store itself or any file
 * SQLite or sessiondb keeps beside it, and never over an existing file unless asked. Paths are
 * compared twice — by device and inode (catches hard links and symlinks to an existing file) and
 * by their symlink-free spelling (catches a companion that does not exist right now, such as a
 * `-wal` between two sessions) — because either alone misses a case.
 */
import { BackupDestinationError } from "../errors.js";
import { dirnameOf, type Host } from "../host/host.js";
import { admissionLockPath, holderPath } from "../locks/admission.js";
import { isInMemoryPath } from "../sqlite-path.js";

/** The store file and every companion: SQLite's journals and shared memory, the admission lock
 * (itself a rollback-journal database) and its holder record. */
export function storeFiles(dbPath: string): string[] {
  const lock = admissionLockPath(dbPath);
  return [
    dbPath,
    `${dbPath}-wal`,
    `${dbPath}-shm`,
    `${dbPath}-journal`,
    lock,
    `${lock}-journal`,
    holderPath(dbPath),
  ];
}

/** The last path segment (POSIX or Windows separators). */
export function basenameOf(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}

/** `path` spelled without symlinks; for a file that does not exist, its folder is resolved. */
function canonical(host: Host, path: string): string | undefined {
  const real = host.realpath(path);
  if (real !== undefined) return real;
  const folder = host.realpath(dirnameOf(path));
  return folder === undefined ? undefined : `${folder}/${basenameOf(path)}`;
}

/** Throw `BackupDestinationError` unless `destination` is a fresh (or, with `overwrite`, a
 * replaceable regular) file in an existing folder that is none of `storePath`'s files. */
export function checkDestination(
  host: Host,
  storePath: string,
  destination: string,
  overwrite: boolean,
): void {
  if (typeof destination !== "string" || isInMemoryPath(destination)) {
    throw new BackupDestinationError(String(destination), "not-a-file", "is not a file path");
  }
  const folder = dirnameOf(destination);
  if (host.stat(folder)?.kind !== "directory") {
    throw new BackupDestinationError(
      destination,
      "no-folder",
      `is in ${JSON.stringify(folder)}, which is not an existing folder`,
    );
  }
  if (!isInMemoryPath(storePath)) {
    const destinationId = host.fileId(destination);
    const destinationName = canonical(host, destination);
    for (const file of storeFiles(storePath)) {
      const sameFile = destinationId !== undefined && host.fileId(file) === destinationId;
      const sameName = destinationName !== undefined && canonical(host, file) === destinationName;
      if (sameFile || sameName) {
        const what =
          file === storePath ? "the store itself" : `the store's companion file ${basenameOf(file)}`;
        throw new BackupDestinationError(destination, "is-store", `is ${what}`);
      }
    }
  }
  const existing = host.stat(destination);
  if (existing && existing.kind !== "file") {
    const what = existing.kind === "directory" ? "a directory" : "a device, FIFO or socket";
    throw new BackupDestinationError(destination, "not-a-file", `is ${what}, not a regular file`);
  }
  if (existing && !overwrite) throw new BackupDestinationError(destination, "exists", "already exists");
}
