/**
 * Where a backup (or a repaired store) may be written: never over the store itself or any file
 * SQLite or sessiondb keeps beside it, and never over an existing file unless asked. Paths are
 * compared twice — by device and inode (catches hard links and symlinks to an existing file) and
 * by their symlink-free spelling (catches a companion that does not exist right now, such as a
 * `-wal` between two sessions) — because either alone misses a case.
 */

import type { SqliteDriver } from "../driver.js";
import { BackupDestinationError } from "../errors.js";
import { dirnameOf, type Host } from "../host/host.js";
import { lockExclusive } from "../locks/exclusive.js";
import { isInMemoryPath } from "../sqlite-path.js";
import { publishFile } from "./files.js";
import { companionsOf, type SqliteFile, sqliteFileOf, sqliteLogsBeside } from "./sqlite-files.js";

/** The store file and every companion: SQLite's journals and shared memory, the admission lock
 * (itself a rollback-journal database) and its holder record. */
export function storeFiles(dbPath: string): string[] {
  return [dbPath, ...companionsOf(dbPath).map((companion) => companion.path)];
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

/** `judge`'s answer: why `path` is refused, or, for a database no other connection has open,
 * the EXCLUSIVE lock on it (release it). */
type Verdict = { refused: string; release?: undefined } | { refused?: undefined; release?: () => void };

/**
 * Whether SQLite files at or beside `path` forbid writing a copy there, overwrite or not.
 * Another database's WAL, journal or companion would be lost; a database another connection has
 * open (SQLite's EXCLUSIVE lock is refused: any connection of a WAL database) would go on in the
 * replaced file; and a -wal, -shm or -journal beside a name that holds no database was left by
 * another one, and SQLite would pair it with the copy — replaying that log into it. A database
 * no connection has open may be replaced, its -wal, -shm and -journal with it (`publishCopy`):
 * they are part of what is overwritten. Its first bytes are read before the lock is tried: the
 * lock is taken only on a database. That read is the one gap: closing its descriptor drops every
 * POSIX lock this process holds on the file, so a process that names as the destination a
 * database (or a -wal/-shm of one) it has open itself gets the refusal but loses its own locks on
 * that file (never the store's: the store and its files are refused above by name and inode
 * without being read).
 */
function judge(driver: SqliteDriver, host: Host, path: string): Verdict {
  let sqlite: SqliteFile | undefined;
  try {
    sqlite = sqliteFileOf(host, path);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { refused: `cannot be read (${why}), so it may be another database's file` };
  }
  if (sqlite && sqlite.kind !== "database") return { refused: `is ${sqlite.description}` };
  if (sqlite) {
    const exclusive = lockExclusive(driver, host, path);
    return exclusive.held
      ? { release: exclusive.release }
      : { refused: "is a SQLite database that another connection has open" };
  }
  const [log] = sqliteLogsBeside(host, path);
  if (!log) return {};
  const name = basenameOf(log.path);
  return {
    refused: `has ${name} beside it, left by another database, which SQLite would pair with the new copy`,
  };
}

/** The errno codes of a file system that refuses this process: mode bits or ownership, a
 * read-only mount. */
const REFUSALS = new Set(["EACCES", "EPERM", "EROFS"]);

/** `error` as the destination's refusal when the file system (or Deno's permissions: its
 * `NotCapable`) would not let this process look at or write the destination, or the name is a
 * loop of symbolic links; else undefined. The error's own message is not repeated: it may name
 * the temporary file the copy is written to first, which the user never asked for. */
export function permissionRefusal(destination: string, error: unknown): BackupDestinationError | undefined {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  if (code === "ELOOP" || name === "FilesystemLoop") {
    return new BackupDestinationError(destination, "not-a-file", "is a loop of symbolic links (ELOOP)", {
      cause: error,
    });
  }
  if (name !== "NotCapable" && !(typeof code === "string" && REFUSALS.has(code))) return undefined;
  return new BackupDestinationError(
    destination,
    "not-permitted",
    `is not this process's to write (${typeof code === "string" ? code : String(name)})`,
    { cause: error },
  );
}

/** The temporary copy could not even be created in the destination's folder: a refusal of the
 * folder (a pseudo file system such as /proc takes no new file: ENOENT, EINVAL). */
export function folderRefusal(destination: string, error: unknown): BackupDestinationError | undefined {
  const known = permissionRefusal(destination, error);
  if (known) return known;
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  const why =
    typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : name === "NotFound" ? "ENOENT" : undefined;
  if (why === undefined) return undefined;
  return new BackupDestinationError(
    destination,
    "not-permitted",
    `is in a folder that takes no new file (${why})`,
    {
      cause: error,
    },
  );
}

/** Throw `BackupDestinationError` unless `destination` is a fresh (or, with `overwrite`, a
 * replaceable regular) file in an existing folder that is none of `storePath`'s files. */
export function checkDestination(
  driver: SqliteDriver,
  host: Host,
  storePath: string,
  destination: string,
  overwrite: boolean,
): void {
  try {
    if (isInMemoryPath(destination)) {
      throw new BackupDestinationError(destination, "not-a-file", "is not a file path");
    }
    const folder = dirnameOf(destination);
    if (host.stat(folder)?.kind !== "directory") {
      throw new BackupDestinationError(
        destination,
        "no-folder",
        `is in ${JSON.stringify(folder)}, which is not an existing folder`,
      );
    }
    const destinationName = canonical(host, destination);
    if (!isInMemoryPath(storePath)) {
      const destinationId = host.fileId(destination);
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
    for (const path of new Set([destination, destinationName ?? destination])) {
      const verdict = judge(driver, host, path);
      if (verdict.refused !== undefined)
        throw new BackupDestinationError(destination, "sqlite-file", verdict.refused);
      verdict.release?.();
    }
    const existing = host.stat(destination);
    if (existing && existing.kind !== "file") {
      const what = existing.kind === "directory" ? "a directory" : "a device, FIFO or socket";
      throw new BackupDestinationError(destination, "not-a-file", `is ${what}, not a regular file`);
    }
    if (existing && !overwrite) throw new BackupDestinationError(destination, "exists", "already exists");
  } catch (error) {
    throw permissionRefusal(destination, error) ?? error;
  }
}

/**
 * Put the finished copy `temporary` at `destination`, which `checkDestination` accepted (asked
 * again here: the copy took time). A database there is replaced under SQLite's EXCLUSIVE lock,
 * so no connection can begin to use it meanwhile, and its -wal, -shm and -journal are removed
 * first: they belong to the database being replaced and would be paired with the copy.
 */
export function publishCopy(driver: SqliteDriver, host: Host, temporary: string, destination: string): void {
  const verdict = judge(driver, host, destination);
  if (verdict.refused !== undefined)
    throw new BackupDestinationError(destination, "sqlite-file", verdict.refused);
  try {
    if (verdict.release) for (const log of sqliteLogsBeside(host, destination)) host.remove(log.path);
    publishFile(host, temporary, destination);
  } finally {
    verdict.release?.();
  }
}
