/**
 * Whether any other connection has a database open, and a way to keep newcomers out: SQLite's
 * EXCLUSIVE file lock (repair takes it before it copies and swaps a store; a backup before it
 * replaces a database), taken by a connection of our own in `locking_mode = EXCLUSIVE` (which keeps every lock it took until it
 * closes) with `busy_timeout = 0`.
 * - In WAL mode every open connection holds a SHARED lock on the database file for as long as it
 *   is open, idle or not (its close uses it to learn whether it is the last one). So the lock is
 *   refused while any other connection, in any process, has the file open.
 * - In rollback-journal mode a connection holds a lock only while it reads or writes: an idle
 *   one cannot be seen.
 * - Once held, nobody can begin to read or write the file until we close.
 * The connection is opened on a hard link of our own (`<db>.lock-probe.tmp-…`): SQLite keys its
 * locks by inode, so it locks the database's file, but the WAL and journal it would open,
 * checkpoint and delete are named after the link. It never reads the database's `-wal` (nor
 * rolls back its `-journal`) and writes nothing to the file.
 */
import { removeDatabaseFile, temporaryName } from "../backup/files.js";
import type { SqliteConnection, SqliteDriver } from "../driver.js";
import { hasResultCode } from "../errors.js";
import type { Host } from "../host/host.js";
import { beginTransaction, rollbackQuietly } from "../transaction.js";

/** What `lockExclusive` got: the lock (release it), or the reason another connection kept it. */
export type ExclusiveLock = { held: true; release(): void } | { held: false; lock: string };

/** Take the EXCLUSIVE lock on the database at `path` (see the module comment). A file SQLite cannot
 * read the header of cannot be in use by SQLite either: it counts as held. */
export function lockExclusive(driver: SqliteDriver, host: Host, path: string): ExclusiveLock {
  const alias = temporaryName(`${path}.lock-probe`, host.pid);
  host.link(path, alias);
  let conn: SqliteConnection | undefined;
  const release = () => {
    try {
      conn?.close();
    } finally {
      removeDatabaseFile(host, alias);
    }
  };
  try {
    conn = driver.open(alias, { readOnly: false });
    conn.exec("PRAGMA busy_timeout = 0");
    conn.exec("PRAGMA locking_mode = EXCLUSIVE");
    // In WAL mode the first read takes the lock; in rollback mode the first write does. Ending
    // the transaction keeps it: exclusive locking mode releases nothing before close.
    beginTransaction(conn, "exclusive");
    rollbackQuietly(conn);
    return { held: true, release };
  } catch (error) {
    release();
    if (hasResultCode(error, "BUSY", "LOCKED")) {
      return { held: false, lock: "shared lock (another connection has the store open)" };
    }
    if (hasResultCode(error, "CORRUPT", "NOTADB")) return { held: true, release: () => undefined };
    throw error;
  }
}
