/**
 * Where the store is and how each command opens it. Read commands open read-only and never
 * create a store; only `import` may create one. Existence is checked here first, so "no store"
 * gets its own exit code instead of a generic open failure. `--db` may also be a libSQL URL:
 * the store then lives on a server (server.ts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as nodePath from "node:path";
import * as url from "node:url";
import type { StoreOptions } from "@sessiondb/core";
import { displayUrl } from "@sessiondb/core/driver";
import { NeedsFileError, StoreMissingError, UsageError } from "./exit.js";
import { type Patience, whileOpening } from "./lock-wait.js";
import { parseNumber } from "./numbers.js";
import { fileError } from "./paths.js";
import type { Runtime } from "./runtime.js";
import { type CliStore, openServerStore } from "./server.js";

/** Options every command accepts. */
export interface GlobalOptions {
  /** --db, else $SESSIONDB_PATH, else ~/.sessiondb/state.db: a path or a libSQL URL. */
  db?: string;
  /** --wait MS: how long to wait for a locked store before exit code 4. */
  wait?: string;
}

/** Where the store is: a file on this machine, or a database on a libSQL server. */
export type StoreLocation =
  | { kind: "file"; path: string; isDefault: boolean }
  | {
      kind: "server";
      /** What the client connects to, as given (it may carry credentials: never print it). */
      url: string;
      /** What messages and reports show: `displayUrl` (scheme, host, port and path; never
       * credentials). */
      shown: string;
    };

/** URL schemes a libSQL client speaks. A `file:` URL is a local store file, opened like its path. */
const SERVER_SCHEMES = new Set(["libsql:", "http:", "https:", "ws:", "wss:"]);

/** A path, or a URL naming a store: `--db`, else `$SESSIONDB_PATH`, else the default path. */
export function storeLocation(options: GlobalOptions): StoreLocation {
  let given = options.db;
  let from = "--db";
  if (given === "") throw new UsageError("--db needs a path or a URL");
  if (given === undefined) {
    given = process.env.SESSIONDB_PATH || undefined;
    from = "$SESSIONDB_PATH";
  }
  if (given === undefined)
    return { kind: "file", path: nodePath.join(os.homedir(), ".sessiondb", "state.db"), isDefault: true };
  const scheme = /^([a-z][a-z0-9+.-]+:)/i.exec(given)?.[1]?.toLowerCase();
  if (scheme === "file:") return { kind: "file", path: fileUrlPath(given, from), isDefault: false };
  if (scheme && SERVER_SCHEMES.has(scheme)) return serverLocation(given, from);
  if (scheme && given.slice(scheme.length).startsWith("//")) {
    throw new UsageError(
      `${from} ${JSON.stringify(given.slice(0, scheme.length + 2))}… is not a store: give a file path, or a libSQL URL (libsql://, https://, http://, wss://, ws://, file:)`,
    );
  }
  return { kind: "file", path: nodePath.resolve(given), isDefault: false };
}

/** `file:///abs/state.db` or `file:relative.db` (relative to the working folder). */
function fileUrlPath(given: string, from: string): string {
  try {
    if (given.startsWith("file://")) return url.fileURLToPath(new URL(given));
  } catch (error) {
    throw new UsageError(`${from} is not a valid file: URL (${(error as Error).message})`);
  }
  const rest = given.slice("file:".length);
  if (rest === "" || rest.includes("?"))
    throw new UsageError(`${from} file: URL needs a path and takes no options, got ${JSON.stringify(given)}`);
  return nodePath.resolve(decodeURIComponent(rest));
}

function serverLocation(given: string, from: string): StoreLocation {
  let parsed: URL;
  try {
    parsed = new URL(given);
  } catch {
    // Not echoed: a malformed URL may still carry a token.
    throw new UsageError(`${from} is not a valid URL; expected libsql://HOST[:PORT] or https://HOST[:PORT]`);
  }
  if (!parsed.hostname) throw new UsageError(`${from} names no host; expected libsql://HOST[:PORT]`);
  return { kind: "server", url: given, shown: displayUrl(given) };
}

/**
 * The store file, for commands that work on the file itself (repair, or the file checks of
 * doctor): a server URL is refused with exit 2 (`NEEDS_FILE`), saying why and what to use.
 */
export function storePath(
  options: GlobalOptions,
  command: string,
  instead?: string,
): { path: string; isDefault: boolean } {
  const where = storeLocation(options);
  if (where.kind === "file") return where;
  throw new NeedsFileError(command, where.shown, instead);
}

/** The store's file, or undefined for a server store (which has no files on this machine). */
export function localStoreFile(options: GlobalOptions): string | undefined {
  const where = storeLocation(options);
  return where.kind === "file" ? where.path : undefined;
}

/** How a location is named in messages: the file's path, or the server URL without credentials. */
export function shownLocation(where: StoreLocation): string {
  return where.kind === "file" ? where.path : where.shown;
}

/** The CLI's waits without --wait: the library's defaults, handed to it explicitly, so that what
 * --help and the lock-wait notice say is what the store does even if the library's defaults
 * change. Appends wait longest: `import` writes with them (losing a transcript is worse than
 * waiting). */
export const DEFAULT_PATIENCE: Readonly<Patience> = { openMs: 20_000, writeMs: 20_000, appendMs: 60_000 };

/** Patience budgets: --wait for each, or DEFAULT_PATIENCE. */
export function patience(options: GlobalOptions): Patience {
  if (options.wait === undefined) return { ...DEFAULT_PATIENCE };
  const ms = parseNumber(options.wait, "--wait");
  return { openMs: ms, writeMs: ms, appendMs: ms };
}

/** A directory or device at the path is "there" but not a store: the library says so (exit 6). */
function requireExisting(path: string): void {
  if (!fs.existsSync(path)) throw new StoreMissingError(path);
}

export type OpenMode =
  /** mode=ro; the store must exist. */
  | "read"
  /** writable; the store must exist. */
  | "write"
  /** writable; created (and the default directory too) when missing. */
  | "create";

/** An open store and how messages name it. */
export interface Opened {
  store: CliStore;
  where: StoreLocation;
  /** The path, or the server URL without credentials. */
  shown: string;
}

/**
 * Open the store for a command: a file through this runtime's adapter (loaded only then), a
 * server URL through @sessiondb/libsql (loaded only then). A server's database always exists,
 * so "read commands never create a store" holds there by the server's own rules.
 */
export async function openFor(
  runtime: () => Promise<Runtime>,
  options: GlobalOptions,
  mode: OpenMode,
  extra: StoreOptions = {},
): Promise<Opened> {
  const where = storeLocation(options);
  const storeOptions: StoreOptions = { ...extra, readOnly: mode === "read", patience: patience(options) };
  if (where.kind === "server") {
    const store = await noStoreIsMissing(openServerStore(where, storeOptions), where.shown);
    return { store, where, shown: where.shown };
  }
  // The adapter first: a runtime without a usable SQLite binding says so whether or not a store
  // is there.
  const rt = await runtime();
  const { path, isDefault } = where;
  if (mode !== "create") requireExisting(path);
  else if (isDefault) {
    const folder = nodePath.dirname(path);
    try {
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw fileError(error, `cannot create the store's folder ${folder}`, "nothing was stored");
    }
  }
  const store: CliStore = await whileOpening(() => noStoreIsMissing(() => rt.open(path, storeOptions), path));
  return { store, where, shown: path };
}

/**
 * A read-only open that finds no store — an empty server database, or a file without the store's
 * tables (the library's `StoreOpenError` with `noStore`) — is "no store here" to the user, like a
 * missing file: exit 3 (`STORE_MISSING`), not an open failure.
 */
async function noStoreIsMissing<T>(open: Promise<T> | (() => T), shown: string): Promise<T> {
  try {
    return await (typeof open === "function" ? open() : open);
  } catch (error) {
    if ((error as { noStore?: unknown } | null)?.noStore === true)
      throw new StoreMissingError(shown, { cause: error });
    throw error;
  }
}

/** Size of the store's files in bytes (missing files count 0). */
export function fileSizes(path: string): { db: number; wal: number; shm: number; total: number } {
  const size = (p: string) => {
    try {
      return fs.statSync(p).size;
    } catch {
      return 0;
    }
  };
  const db = size(path);
  const wal = size(`${path}-wal`);
  const shm = size(`${path}-shm`);
  return { db, wal, shm, total: db + wal + shm };
}
