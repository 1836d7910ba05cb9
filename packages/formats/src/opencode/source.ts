/**
 * One place opencode keeps sessions, whatever its kind: its data folder
 * (`~/.local/share/opencode/`, with `opencode.db` — `opencode-<channel>.db` for other release
 * channels — and/or the older `storage/` folder), a database file, or a storage folder. An
 * install that migrated has both: a session the database holds is read from it only (opencode
 * copied the files into it), so nothing comes in twice.
 */
import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { SqliteDriver } from "@sessiondb/core";
import { OpencodeDatabase } from "./database.js";
import type { OpencodeRecord, OpencodeSessionInfo } from "./records.js";
import { OpencodeStorage } from "./storage.js";

/** A session found, before its records are read. */
export interface OpencodeSessionEntry {
  id: string;
  /** Changes whenever the session gains or changes records: an unchanged one is skipped. */
  mark: string;
  /** The session row, or the storage session file's JSON. */
  info: OpencodeSessionInfo;
  /** The database or session file it was found in (for problems). */
  where: string;
}

/** A record read, or a record that could not be (a row's or a file's JSON is broken). */
export type ReadItem = { record: OpencodeRecord } | { problem: { file: string; message: string } };

/** The database files opencode writes in its data folder. */
const DATABASE = /^opencode(-[A-Za-z0-9._-]+)?\.db$/;

export class OpencodeSource {
  readonly #databases: OpencodeDatabase[];
  readonly #storage: OpencodeStorage | undefined;
  readonly #from = new Map<string, OpencodeDatabase | OpencodeStorage>();

  private constructor(databases: OpencodeDatabase[], storage: OpencodeStorage | undefined) {
    this.#databases = databases;
    this.#storage = storage;
  }

  /** Opens what `path` holds (the databases read-only through `driver`); throws when it holds
   * nothing of opencode's. */
  static async open(path: string, driver: SqliteDriver): Promise<OpencodeSource> {
    const info = await stat(path);
    if (info.isFile()) return new OpencodeSource([new OpencodeDatabase(driver, path)], undefined);
    const entries = await readdir(path, { withFileTypes: true });
    const names = new Set(entries.map((e) => e.name));
    const storage = names.has("session")
      ? new OpencodeStorage(path)
      : names.has("storage")
        ? new OpencodeStorage(join(path, "storage"))
        : undefined;
    const files = entries.filter((e) => e.isFile() && DATABASE.test(e.name)).map((e) => e.name);
    if (storage === undefined && files.length === 0)
      throw new Error(
        `${path} holds no opencode database (opencode.db) nor storage folder (storage/session/)`,
      );
    const databases: OpencodeDatabase[] = [];
    try {
      for (const name of files.sort()) databases.push(new OpencodeDatabase(driver, join(path, name)));
    } catch (error) {
      for (const db of databases) db.close();
      throw error;
    }
    return new OpencodeSource(databases, storage);
  }

  /** Every session: the databases' first, then the storage sessions no database holds. */
  async sessions(): Promise<OpencodeSessionEntry[]> {
    const out: OpencodeSessionEntry[] = [];
    for (const db of this.#databases)
      for (const entry of db.sessions())
        if (!this.#from.has(entry.id)) {
          this.#from.set(entry.id, db);
          out.push(entry);
        }
    for (const entry of (await this.#storage?.sessions()) ?? [])
      if (!this.#from.has(entry.id)) {
        this.#from.set(entry.id, this.#storage as OpencodeStorage);
        out.push(entry);
      }
    return out;
  }

  /** Problems met while listing sessions (a storage session file that is no JSON). */
  get problems(): readonly { file: string; message: string }[] {
    return this.#storage?.problems ?? [];
  }

  /** A listed session's messages with their parts, in order. */
  records(entry: OpencodeSessionEntry): AsyncIterable<ReadItem> {
    const from = this.#from.get(entry.id);
    if (from === undefined) throw new Error(`session ${JSON.stringify(entry.id)} was not listed`);
    return from.records(entry.id);
  }

  close(): void {
    for (const db of this.#databases) db.close();
  }

  /** The name shown for where a session came from. */
  static label(entry: OpencodeSessionEntry): string {
    return basename(entry.where);
  }
}
