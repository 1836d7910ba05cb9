/**
 * opencode as a DatabaseFormat: `sessiondb import --from opencode [PATH…]` and
 * `importFrom(store, opencode, roots, { driver })`. A root is opencode's data folder
 * (`~/.local/share/opencode`, under `$XDG_DATA_HOME` when set, as opencode's own is), its
 * database file, or a JSON `storage/` folder. The database is opened read-only; the older
 * `storage/` folder beside it is read too, for the sessions the database does not hold (an
 * install that migrated has both: the database wins); a data folder with no database (an opencode
 * too old to have one) is read from its storage alone.
 */
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { DatabaseFormat, DatabaseSession, ListingProblem } from "../mapped.js";
import { type Connection, databaseRecords, databaseSessions } from "./database.js";
import { OpencodeMessages, opencodeSessionFacts } from "./messages.js";
import { OPENCODE_FORMAT } from "./records.js";
import { storageRecords, storageSessions } from "./storage.js";

/** The opencode format. */
export const opencode: DatabaseFormat = {
  kind: "database",
  name: OPENCODE_FORMAT,
  defaultRoots: [".local/share/opencode"],
  fileName: "opencode.db",
  // opencode's data folder is xdg-basedir's data folder + "opencode" (its global/index.ts).
  rootsFromEnv: (env) => {
    const data = env.XDG_DATA_HOME?.trim();
    return data ? [join(data, "opencode")] : undefined;
  },
  sessions,
  folder: { find: storageIn, sessions: (storage, problems) => fromStorage(storage, problems) },
  mapper: () => new OpencodeMessages(),
};

function sessions(db: Connection, problems: ListingProblem[]): DatabaseSession[] {
  const listed: DatabaseSession[] = databaseSessions(db).map((entry) => ({
    id: entry.id,
    facts: opencodeSessionFacts(entry.id, entry.info, entry.firstModel),
    mark: entry.mark,
    records: () => databaseRecords(db, entry.id),
  }));
  const storage = storageBeside(db);
  if (storage === undefined) return listed;
  const held = new Set(listed.map((s) => s.id));
  return [...listed, ...fromStorage(storage, problems).filter((s) => !held.has(s.id))];
}

/** A storage folder's sessions; a session file that is no JSON is a problem, its session left. */
function fromStorage(storage: string, problems: ListingProblem[]): DatabaseSession[] {
  return storageSessions(storage, problems).map((entry) => ({
    id: entry.id,
    facts: opencodeSessionFacts(entry.id, entry.info, entry.firstModel),
    mark: entry.mark,
    records: () => storageRecords(storage, entry.id),
  }));
}

/** The storage folder a root holds (`<data>/storage`) or is. */
function storageIn(root: string): string | undefined {
  if (existsSync(join(root, "storage", "session"))) return join(root, "storage");
  return basename(root) === "storage" && existsSync(join(root, "session")) ? root : undefined;
}

/** The `storage/` folder beside the database file, if there is one. */
function storageBeside(db: Connection): string | undefined {
  const main = db
    .prepare("PRAGMA database_list")
    .all()
    .find((row) => row.name === "main");
  const file = typeof main?.file === "string" && main.file !== "" ? main.file : undefined;
  return file === undefined ? undefined : storageIn(dirname(file));
}
