/**
 * The opencode fixtures made real for a test: the database built from `opencode.sql` by the
 * runtime's own SQLite (in WAL mode, as opencode keeps it) in a temporary data folder, beside a
 * copy of the JSON storage folder (and one broken part file); or that storage folder alone. The
 * builder's connection stays open for the test to write with, as opencode would between two
 * imports.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SqliteDriver } from "@sessiondb/core";

const FIXTURES = new URL("../fixtures/opencode/", import.meta.url);

export interface OpencodeHome {
  /** The data folder (`~/.local/share/opencode`). */
  dir: string;
  db: string;
  /** A writable connection to the database (opencode's own). */
  writer: ReturnType<SqliteDriver["open"]>;
}

export function opencodeHome(driver: SqliteDriver): OpencodeHome {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-opencode-"));
  const db = join(dir, "opencode.db");
  const writer = driver.open(db, { readOnly: false });
  writer.exec("PRAGMA journal_mode = WAL");
  writer.exec(readFileSync(new URL("opencode.sql", FIXTURES), "utf8"));
  copyStorage(dir);
  return { dir, db, writer };
}

/** A data folder of an opencode too old to have a database: the same storage folder alone, and
 * one more session file, cut off mid-write. */
/** `home` is the home folder, `dir` its `.local/share/opencode`. */
export function opencodeStorageHome(): { home: string; dir: string; brokenSession: string } {
  const home = mkdtempSync(join(tmpdir(), "sessiondb-opencode-storage-"));
  const dir = join(home, ".local", "share", "opencode");
  copyStorage(dir);
  const brokenSession = join(dir, "storage", "session", "prj_widget", "ses_04cut.json");
  writeFileSync(brokenSession, '{"id":"ses_04cut","projectID":"prj_widget","title":"cut');
  return { home, dir, brokenSession };
}

function copyStorage(dir: string): void {
  cpSync(new URL("storage", FIXTURES), join(dir, "storage"), { recursive: true });
  // A part file cut off mid-write (made here: the repository's JSON files all parse).
  writeFileSync(
    join(dir, "storage", "part", "msg_03b", "prt_03b3.json"),
    '{"id":"prt_03b3","messageID":"msg_03b","sessionID":"ses_03old","type":"text","text":"cut off',
  );
}
