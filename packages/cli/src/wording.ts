/**
 * The CLI's words for the library's errors and notes. The library speaks to programmers: its
 * messages name its API ("pass { overwrite: true }", "store.createSession(...)", "open it with
 * { readOnly: true }"), which a person at a shell cannot type. This is the one place that turns
 * them into the flag, command or file to use instead: by the error's stable `code` and its
 * structured fields, so the library stays free to reword its own messages. An error this file
 * has no words for keeps the library's message.
 *
 * Library prose without structured fields (an INVALID_INPUT's problem, a vacuum note) goes
 * through `cliProse`, a short table of the library's API phrases and the CLI's for each; a test
 * checks that nothing a CLI user can reach still names the API.
 */
import * as fs from "node:fs";
import * as nodePath from "node:path";
import type { IntegrityProblem } from "@sessiondb/core";

/** The store the command works on, for messages that name it (set once its location is known). */
let store: { shown: string; server: boolean } | undefined;

/** Remember how messages name the store: its path, or the server URL without credentials. */
export function rememberStore(shown: string, server: boolean): void {
  store = { shown, server };
}

const inStore = () => (store ? ` in ${store.shown}` : "");

/** The library's API phrases inside its prose, and what a CLI user does instead. */
const API_PHRASES: ReadonlyArray<readonly [string, string]> = [
  ["pass { substring: true }", "add --substring"],
  ["a full vacuum ({ full: true })", "a full vacuum (sessiondb vacuum --full)"],
  [" (store.rebuildFts())", ""],
  [" (repairStore)", ' ("sessiondb repair")'],
];

/** Library prose with its API phrases replaced by the CLI's flags and commands. */
export function cliProse(text: string): string {
  let out = text;
  for (const [api, cli] of API_PHRASES) out = out.split(api).join(cli);
  return out;
}

/** CLI names for the library's option fields (`InvalidInputError.field`). */
function optionName(field: string): string | undefined {
  if (/^(openStore|createStore)\.patience\./.test(field)) return "--wait";
  if (field === "search.query") return "the search query";
  return undefined;
}

interface Fields {
  code?: unknown;
  message?: unknown;
  field?: unknown;
  sessionId?: unknown;
  destination?: unknown;
  reason?: unknown;
  path?: unknown;
  lock?: unknown;
  storeVersion?: unknown;
  supportedVersion?: unknown;
  sqliteVersion?: unknown;
  noStore?: unknown;
  cause?: unknown;
}

/** What kind of file is at `path`, in words ("a character device"), or undefined when none. */
function fileKind(path: string): string | undefined {
  const stat = fs.statSync(path, { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (stat.isDirectory()) return "a folder";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isSocket()) return "a socket";
  return stat.isFile() ? "a regular file" : "not a regular file";
}

function backupRefused(destination: string, reason: unknown): string | undefined {
  const nothing = "nothing was written and the store is unchanged";
  switch (reason) {
    case "exists":
      return `${destination} already exists; ${nothing}. Add --overwrite to replace it, or pick a new file name.`;
    case "is-store":
      return `will not write a copy over ${destination}: it is the store or one of its files; ${nothing}. Pick another file name.`;
    case "no-folder":
      return `cannot write ${destination}: its folder does not exist; ${nothing}.`;
    case "not-permitted":
      return `cannot write ${destination}: this user may not write there (permission denied or a read-only file system); ${nothing}. Pick a folder you can write to.`;
    case "sqlite-file":
      // The library's words say which SQLite file it is, and name no API.
      return undefined;
    default: {
      const kind = fileKind(destination);
      return `will not write a copy to ${destination}: it is ${kind ?? "not a file path"}, not a regular file; ${nothing}. Pick a file name.`;
    }
  }
}

/** A writable open that found no folder to create the store in: say what is in the way. */
function folderProblem(path: string): string | undefined {
  const folder = nodePath.dirname(path);
  for (let at = folder; ; at = nodePath.dirname(at)) {
    const stat = fs.statSync(at, { throwIfNoEntry: false });
    if (stat && !stat.isDirectory())
      return `cannot create a store at ${path}: ${at} is a file, not a folder. Nothing was changed.`;
    if (stat || nodePath.dirname(at) === at) break;
  }
  if (!fs.existsSync(folder))
    return `cannot create a store at ${path}: its folder ${folder} does not exist. Create the folder first; nothing was changed.`;
  return undefined;
}

/**
 * The CLI's message for a library error, or undefined to keep the library's own. Without the
 * `sessiondb:` prefix and the `[CODE]`, which the caller adds.
 */
export function cliMessage(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as Fields;
  switch (e.code) {
    case "BACKUP_DESTINATION_REFUSED":
      return typeof e.destination === "string" ? backupRefused(e.destination, e.reason) : undefined;
    case "STORE_IN_USE":
      if (typeof e.path !== "string") return undefined;
      return `another process holds the ${String(e.lock)} on ${String(e.path)}, so repair did not run; nothing was changed. Stop every process that uses the store and retry, or add --force only if that process will never write again: one that keeps the store open across a forced repair goes on using the damaged original.`;
    case "SESSION_NOT_FOUND":
      if (typeof e.sessionId !== "string") return undefined;
      return `no session ${JSON.stringify(e.sessionId)}${inStore()}; nothing was changed`;
    case "STORE_READONLY":
      return `${store?.shown ?? "the store"} is read-only for this process, so nothing was changed. Read commands (stats, sessions list/show, search, export, check) still work; to change it, ${store?.server ? "use a token that may write" : "make the file and its folder writable for this user"}.`;
    case "SCHEMA_TOO_NEW":
      return `the store has schema version ${String(e.storeVersion)}, newer than the ${String(e.supportedVersion)} this sessiondb understands, so it will not write to it; nothing was changed. Upgrade sessiondb (npm install -g sessiondb); read commands still work.`;
    case "UNSAFE_SQLITE":
      return `SQLite ${String(e.sqliteVersion)} has the WAL-reset bug (fixed in 3.51.3, 3.50.7 and 3.44.6), and writing a WAL store with it could corrupt the store; nothing was changed. Run this command with a fixed SQLite (a newer runtime, or another SESSIONDB_DRIVER); read commands still work.`;
    case "STORE_CLOSED":
      return "the store was closed before the command finished; nothing more was changed. This is a bug in sessiondb: please report it.";
    case "STORE_OPEN_FAILED":
      return typeof e.path === "string" && e.noStore !== true && !store?.server
        ? folderProblem(e.path)
        : undefined;
    case "INVALID_INPUT":
      return invalidInput(e);
    case "STORE_CORRUPT":
      return typeof e.message === "string" ? cliProse(e.message) : undefined;
  }
  return undefined;
}

/** An INVALID_INPUT message reworded: its field as the CLI's option, its problem in CLI words. */
function invalidInput(e: Fields): string | undefined {
  if (typeof e.field !== "string" || typeof e.message !== "string") return undefined;
  const name = optionName(e.field);
  // The library's message is `Invalid <field>: <problem>. Nothing was stored.` (InvalidInputError).
  const prefix = `Invalid ${e.field}: `;
  if (!name || !e.message.startsWith(prefix)) return undefined;
  const suffix = ". Nothing was stored.";
  const rest = e.message.slice(prefix.length);
  const problem = rest.endsWith(suffix) ? rest.slice(0, -suffix.length) : rest;
  return `${name}: ${cliProse(problem)}`;
}

/** An integrity problem as the CLI reports it. */
export function problemText(problem: IntegrityProblem): string {
  if (problem.kind === "fts-detached")
    return 'the FTS index is detached (stale) and search answers by LIKE; run "sessiondb fts rebuild" to restore it';
  return cliProse(problem.message);
}
