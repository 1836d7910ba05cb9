/**
 * opencode as a DatabaseFormat: `sessiondb import --from opencode [PATH…]` and
 * `importFrom(store, opencode, roots, { driver })`. The importer opens opencode's database
 * read-only (`~/.local/share/opencode/opencode.db`, under `$XDG_DATA_HOME` when set, as
 * opencode's own data folder is); an older JSON `storage/` folder beside it is read too, for the
 * sessions the database does not hold (an install that migrated has both: the database wins).
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DatabaseFormat, DatabaseSession } from "../mapped.js";
import { type Connection, databaseRecords, databaseSessions } from "./database.js";
import { OpencodeMessages, opencodeSessionFacts } from "./messages.js";
import { OPENCODE_FORMAT } from "./records.js";
import { storageRecords, storageSessions } from "./storage.js";

/** The opencode format. */
export const opencode: DatabaseFormat = {
  kind: "database",
  name: OPENCODE_FORMAT,
  defaultRoots: [".local/share/opencode/opencode.db"],
  fileName: "opencode.db",
  // opencode's data folder is xdg-basedir's data folder + "opencode" (its global/index.ts).
  rootsFromEnv: (env) => {
    const data = env.XDG_DATA_HOME?.trim();
    return data ? [join(data, "opencode", "opencode.db")] : undefined;
  },
  sessions,
  mapper: () => new OpencodeMessages(),
};

function sessions(db: Connection): DatabaseSession[] {
  const listed: DatabaseSession[] = databaseSessions(db).map((entry) => ({
    id: entry.id,
    facts: opencodeSessionFacts(entry.id, entry.info, entry.firstModel),
    mark: entry.mark,
    records: () => databaseRecords(db, entry.id),
  }));
  const storage = storageBeside(db);
  if (storage === undefined) return listed;
  const held = new Set(listed.map((s) => s.id));
  // A storage session file that is no JSON is left out here (a listing has no place for a
  // problem); its messages and parts are each reported when read.
  for (const entry of storageSessions(storage, []))
    if (!held.has(entry.id))
      listed.push({
        id: entry.id,
        facts: opencodeSessionFacts(entry.id, entry.info, entry.firstModel),
        mark: entry.mark,
        records: () => storageRecords(storage, entry.id),
      });
  return listed;
}

/** The `storage/` folder beside the database file, if there is one. */
function storageBeside(db: Connection): string | undefined {
  const main = db
    .prepare("PRAGMA database_list")
    .all()
    .find((row) => row.name === "main");
  const file = typeof main?.file === "string" && main.file !== "" ? main.file : undefined;
  if (file === undefined) return undefined;
  const storage = join(dirname(file), "storage");
  return existsSync(join(storage, "session")) ? storage : undefined;
}
