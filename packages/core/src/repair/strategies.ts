/**
 * The repairs that keep every row, least destructive first. Each works on the scratch copy in
 * place and ends with the index rebuilt, because every later one also disturbs it.
 */
import { vacuumInto } from "../backup/copy.js";
import { removeDatabaseFile, temporaryName } from "../backup/files.js";
import type { SqliteConnection, SqliteDriver } from "../driver.js";
import { ftsDropDdl } from "../fts/index.js";
import type { Host } from "../host/host.js";
import { META_FINGERPRINT } from "../schema/definition.js";
import { inTransaction } from "../transaction.js";
import { openScratch } from "./assess.js";

function withConnection(driver: SqliteDriver, path: string, fn: (conn: SqliteConnection) => void): void {
  const conn = driver.open(path, { readOnly: false });
  try {
    fn(conn);
  } finally {
    conn.close();
  }
}

/** FTS5 'rebuild' through the store; when the index is too damaged for that, drop it and clear
 * the schema fingerprint, so the next open installs a new index and fills it. */
export function rebuildIndex(driver: SqliteDriver, host: Host, path: string): void {
  try {
    const store = openScratch(driver, host, path);
    try {
      if (store.rebuildFts({ timeoutMs: 0 }).rebuilt) return;
    } finally {
      store.close();
    }
  } catch {
    // damaged beyond FTS5's own rebuild: replace the index below
  }
  withConnection(driver, path, (conn) => {
    inTransaction(conn, "write", () => {
      for (const statement of ftsDropDdl()) conn.exec(statement);
      conn.prepare("DELETE FROM state_meta WHERE key = ?").run(META_FINGERPRINT);
    });
  });
  openScratch(driver, host, path, true).close();
}

/** Rebuild every ordinary index from its table. */
export function reindex(driver: SqliteDriver, host: Host, path: string): void {
  withConnection(driver, path, (conn) => conn.exec("REINDEX"));
  rebuildIndex(driver, host, path);
}

/** Rewrite the whole file from its tables (indexes and free pages are not read). */
export function vacuum(driver: SqliteDriver, host: Host, path: string): void {
  const rewritten = temporaryName(path, host.pid);
  try {
    withConnection(driver, path, (conn) => vacuumInto(conn, rewritten));
    removeDatabaseFile(host, path);
    host.rename(rewritten, path);
  } catch (error) {
    removeDatabaseFile(host, rewritten);
    throw error;
  }
  rebuildIndex(driver, host, path);
}
