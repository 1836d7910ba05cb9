/**
 * One place opencode keeps sessions, whatever its kind: its data folder
 * (`~/.local/share/opencode/`, with `opencode.db` — `opencode-<channel>.db` for other release
 * channels — and/or the older `storage/` folder), a database file, or a storage folder. An
 * install that migrated has both: a session a database holds is read from it only (opencode
 * copied the files into it), so nothing comes in twice.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { SqliteDriver } from "@sessiondb/core";
import { type Connection, databaseRecords, databaseSessions, type OpencodeSessionEntry } from "./database.js";
import type { OpencodeRow } from "./records.js";
import { storageRecords, storageSessions } from "./storage.js";

/** The database files opencode writes in its data folder. */
const DATABASE = /^opencode(-[A-Za-z0-9._-]+)?\.db$/;

/** A listed session and where it is read from (a database file or a storage session file). */
export interface OpencodeListed extends OpencodeSessionEntry {
  where: string;
}

export class OpencodeSource {
  readonly #databases: { path: string; db: Connection }[];
  readonly #storage: string | undefined;
  readonly #from = new Map<string, { db: Connection } | { storage: string }>();
  /** Problems met while listing (a storage session file that is no JSON). */
  readonly problems: { file: string; message: string }[] = [];

  private constructor(databases: { path: string; db: Connection }[], storage: string | undefined) {
    this.#databases = databases;
    this.#storage = storage;
  }

  /** Opens what `path` holds (its databases read-only through `driver`); throws when it holds
   * nothing of opencode's. */
  static open(path: string, driver: SqliteDriver): OpencodeSource {
    if (statSync(path).isFile())
      return new OpencodeSource([{ path, db: openReadOnly(driver, path) }], undefined);
    const entries = readdirSync(path, { withFileTypes: true });
    const names = new Set(entries.map((e) => e.name));
    const storage = names.has("session") ? path : names.has("storage") ? join(path, "storage") : undefined;
    const files = entries.filter((e) => e.isFile() && DATABASE.test(e.name)).map((e) => e.name);
    if (storage === undefined && files.length === 0)
      throw new Error(
        `${path} holds no opencode database (opencode.db) nor storage folder (storage/session/)`,
      );
    const databases: { path: string; db: Connection }[] = [];
    try {
      for (const name of files.sort())
        databases.push({ path: join(path, name), db: openReadOnly(driver, join(path, name)) });
    } catch (error) {
      for (const d of databases) d.db.close();
      throw error;
    }
    return new OpencodeSource(databases, storage);
  }

  /** Every session: the databases' first, then the storage sessions no database holds. */
  sessions(): OpencodeListed[] {
    const out: OpencodeListed[] = [];
    for (const { path, db } of this.#databases)
      for (const entry of databaseSessions(db))
        if (!this.#from.has(entry.id)) {
          this.#from.set(entry.id, { db });
          out.push({ ...entry, where: path });
        }
    if (this.#storage !== undefined)
      for (const entry of storageSessions(this.#storage, this.problems))
        if (!this.#from.has(entry.id)) {
          this.#from.set(entry.id, { storage: this.#storage });
          out.push({ ...entry, where: this.#storage });
        }
    return out;
  }

  /** A listed session's messages with their parts, in order. */
  records(entry: OpencodeSessionEntry): Iterable<OpencodeRow> {
    const from = this.#from.get(entry.id);
    if (from === undefined) throw new Error(`session ${JSON.stringify(entry.id)} was not listed`);
    return "db" in from ? databaseRecords(from.db, entry.id) : storageRecords(from.storage, entry.id);
  }

  close(): void {
    for (const { db } of this.#databases) db.close();
  }
}

function openReadOnly(driver: SqliteDriver, path: string): Connection {
  return driver.open(path, { readOnly: true });
}
