/**
 * The first step of a repair: make sure nobody is using the damaged store, and copy it to a
 * scratch file that repair may change at will. Another connection is seen by the EXCLUSIVE lock
 * (locks/exclusive.ts: any open connection of a WAL store, a busy one of a rollback store) and
 * named by the probes below. The damaged file itself is never written:
 * - the write-lock probe is a `BEGIN IMMEDIATE` with busy_timeout 0 on a connection of our own,
 *   rolled back at once (it writes nothing);
 * - in WAL mode a read-only connection keeps a read transaction open meanwhile, so the probe's
 *   close cannot checkpoint the WAL into the file (a checkpoint needs every reader gone), and a
 *   read-only connection never checkpoints on its own close;
 * - a rollback journal left beside the file is only ever looked at read-only: SQLite reports it
 *   "hot" (its writer died) exactly when no process holds a lock for it. It is then copied with
 *   the file, and SQLite rolls it back in the scratch copy, not in the original.
 * The copy is made by SQLite's backup API where the driver has it. Otherwise (and when SQLite
 * cannot read the file at all) every connection of ours to the file is closed first and the
 * bytes are copied — with no connection open, no lock of this process can be dropped.
 */
import { onlineCopy } from "../backup/copy.js";
import type { SqliteConnection, SqliteDriver } from "../driver.js";
import { hasResultCode, StoreInUseError, StoreOpenError } from "../errors.js";
import type { Host } from "../host/host.js";
import { lockExclusive } from "../locks/exclusive.js";
import { logsBeside, removeLogsMadeSince } from "../locks/reader-logs.js";
import { beginTransaction, commitTransaction, inTransaction } from "../transaction.js";

function closeQuietly(conn: SqliteConnection | undefined): void {
  try {
    conn?.close();
  } catch {
    // closing a connection we only probed with: nothing to report
  }
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The lock another connection holds on `path`, or undefined when none was seen. */
function probeWriteLock(driver: SqliteDriver, path: string): string | undefined {
  let probe: SqliteConnection | undefined;
  try {
    probe = driver.open(path, { readOnly: false });
    probe.exec("PRAGMA busy_timeout = 0");
    inTransaction(probe, "write", () => undefined, { rollback: true });
    return undefined;
  } catch (error) {
    if (hasResultCode(error, "BUSY", "LOCKED")) return "write lock (another connection is writing)";
    // A file SQLite cannot even read the header of cannot be in use by SQLite either.
    if (hasResultCode(error, "CORRUPT", "NOTADB")) return undefined;
    throw error;
  } finally {
    closeQuietly(probe);
  }
}

/** Read-only probe of a store with a rollback journal beside it: BUSY means a writer holds
 * the lock; "readonly" means the journal is hot (no live writer) and must be rolled back by a
 * writer; a clean read means a live writer holds RESERVED and has not committed yet. */
function probeJournal(driver: SqliteDriver, path: string): string | undefined {
  let reader: SqliteConnection | undefined;
  try {
    reader = driver.open(path, { readOnly: true });
    reader.exec("PRAGMA busy_timeout = 0");
    reader.prepare("SELECT count(*) FROM sqlite_schema").get();
    return "write lock (RESERVED: a writer is in the middle of a transaction)";
  } catch (error) {
    if (hasResultCode(error, "BUSY", "LOCKED")) return "write lock (EXCLUSIVE: a writer is committing)";
    if (hasResultCode(error, "READONLY", "CORRUPT", "NOTADB")) return undefined;
    throw error;
  } finally {
    closeQuietly(reader);
  }
}

/** Refuse (unless `force`) when another process uses `path`, then copy it to `scratch`.
 * Returns the lock that `force` overrode, if any. Leaves no file beside the store that was not
 * there: the reader's `-wal` and `-shm` are taken back (locks/reader-logs.ts). */
export async function copyForRepair(
  driver: SqliteDriver,
  host: Host,
  path: string,
  scratch: string,
  force: boolean,
): Promise<string | undefined> {
  const info = host.stat(path);
  if (info?.kind !== "file") {
    throw new StoreOpenError(path, info ? "it is not a regular file" : "no store exists there");
  }
  const found = logsBeside(host, path);
  try {
    return await probeAndCopy(driver, host, path, scratch, force);
  } finally {
    removeLogsMadeSince(driver, host, path, found);
  }
}

async function probeAndCopy(
  driver: SqliteDriver,
  host: Host,
  path: string,
  scratch: string,
  force: boolean,
): Promise<string | undefined> {
  const journal = host.stat(`${path}-journal`);
  let reader: SqliteConnection | undefined;
  let lock: string | undefined;
  try {
    // Taken and released before any connection of ours opens the store (ours would count too).
    const exclusive = lockExclusive(driver, host, path);
    if (exclusive.held) exclusive.release();
    if (journal && journal.size > 0) {
      lock = probeJournal(driver, path);
    } else {
      // Holding a read transaction while the probe closes keeps that close from checkpointing.
      try {
        reader = driver.open(path, { readOnly: true });
        reader.exec("PRAGMA busy_timeout = 0");
        beginTransaction(reader, "read");
        reader.prepare("PRAGMA schema_version").get();
      } catch (error) {
        if (!hasResultCode(error, "CORRUPT", "NOTADB", "BUSY", "LOCKED")) throw error;
        closeQuietly(reader);
        reader = undefined;
      }
      lock = probeWriteLock(driver, path);
      if (reader) commitTransaction(reader);
    }
    // The probes name a lock in use; an idle connection holds none of theirs.
    if (!exclusive.held) lock ??= exclusive.lock;
    if (lock && !force) throw new StoreInUseError(path, lock);
    if (reader && driver.backup) {
      try {
        await onlineCopy({ ...driver, backup: driver.backup }, reader, scratch, { stepped: false });
        return lock;
      } catch (error) {
        // SQLite could not page through the file (a damaged header or page count): copy bytes.
        if (!hasResultCode(error, "CORRUPT", "NOTADB", "IOERR")) throw error;
        host.remove(scratch);
      }
    }
  } catch (error) {
    throw error instanceof StoreInUseError
      ? error
      : new StoreOpenError(path, message(error), { cause: error });
  } finally {
    // Closed before any byte of the file is read below: then no lock of ours can be dropped.
    closeQuietly(reader);
  }
  // The caller made the scratch file empty and private; a byte copy makes its own (0600).
  host.remove(scratch);
  host.copyFile(path, scratch);
  for (const companion of ["-wal", "-journal"]) {
    if (host.stat(`${path}${companion}`)) host.copyFile(`${path}${companion}`, `${scratch}${companion}`);
  }
  restoreLength(host, scratch);
  return lock;
}

/**
 * A file shorter than its header says (truncated by a bad copy or a full disk) is refused whole
 * by SQLite ("malformed") unless writable_schema is on, which defensive builds forbid. Padding
 * the scratch copy with zeros to the header's length lets SQLite open it; the missing pages
 * then read as damaged pages, and salvage loses only the rows that lived on them.
 */
function restoreLength(host: Host, scratch: string): void {
  const header = host.readBytes(scratch, 0, 100);
  if (header.length < 100) return;
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const rawPageSize = view.getUint16(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pages = view.getUint32(28);
  // The header's page count is trusted only when it was written by a SQLite that maintains it.
  const valid = pages > 0 && view.getUint32(24) === view.getUint32(92);
  const size = host.stat(scratch)?.size ?? 0;
  if (valid && pages * pageSize > size) host.resize(scratch, pages * pageSize);
}
