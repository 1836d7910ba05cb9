/**
 * Files named on the command line besides the store (`export --output`, `import FILE`): where
 * they really are, the guard that keeps them off the store's own files and off every SQLite
 * database, and one-line errors for what the file system refuses.
 *
 * Writing the store, its -wal/-shm/-journal or its lock files with anything but SQLite destroys
 * it; even reading one of them while the store is open in this process is unsafe, because closing
 * any descriptor of a file drops every POSIX lock the process holds on it. So paths are compared
 * after following every symlink, existing files also by device and inode (a hard link has a path
 * of its own), and the guard runs before the command opens the store.
 */
import * as fs from "node:fs";
import * as nodePath from "node:path";
import { companionsOf, type SqliteFile, sqliteFileOf } from "@sessiondb/core";
import { nodeFsHost } from "@sessiondb/core/host";
import { EXIT, ExitError } from "./exit.js";

/** A path as the file system resolves it. */
export interface ResolvedPath {
  /** As given on the command line, for messages. */
  given: string;
  /** Absolute, every symlink followed; for a file that does not exist yet, its folder's real path
   * and its name (a dangling symlink resolves to the file it would create). */
  real: string;
  /** What is there now, or undefined. */
  stat: fs.Stats | undefined;
}

const sameFile = (a: fs.Stats, b: fs.Stats) => a.dev === b.dev && a.ino === b.ino;

/** Linux gives up after 40 links too (ELOOP). */
const MAX_SYMLINKS = 40;

function errnoError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The real path of an existing file. A pipe or socket behind a /dev/fd link has none (its link
 * reads "pipe:[…]"): it keeps the path it was given, and device and inode identify it. */
function realPathOf(absolute: string, stat: fs.Stats): string {
  try {
    const real = fs.realpathSync(absolute);
    const there = fs.statSync(real, { throwIfNoEntry: false });
    if (there && sameFile(there, stat)) return real;
  } catch {
    // No path to resolve to: see above.
  }
  return absolute;
}

/** Resolve `given`; throws the file system's error (see `fileError`). */
export function resolvePath(given: string): ResolvedPath {
  const absolute = nodePath.resolve(given);
  // stat follows every link, the kernel's own too (/dev/fd/N of a pipe, whose "target" is no path).
  const stat = fs.statSync(absolute, { throwIfNoEntry: false });
  if (stat) {
    return { given, real: realPathOf(absolute, stat), stat };
  }
  // Nothing there yet; a dangling symlink names the file that writing would create.
  let current = absolute;
  for (let hops = 0; hops <= MAX_SYMLINKS; hops++) {
    if (!fs.lstatSync(current, { throwIfNoEntry: false })?.isSymbolicLink()) {
      const folder = fs.realpathSync(nodePath.dirname(current));
      if (!fs.statSync(folder).isDirectory()) throw errnoError("ENOTDIR", `${folder} is not a folder`);
      return { given, real: nodePath.join(folder, nodePath.basename(current)), stat: undefined };
    }
    current = nodePath.resolve(nodePath.dirname(current), fs.readlinkSync(current));
  }
  throw errnoError("ELOOP", "too many symbolic links");
}

/** Errors in the path itself: the caller's to fix (exit 2). */
const PATH_PROBLEMS: Record<string, string> = {
  ENOENT: "no such file or folder",
  ENOTDIR: "a part of the path is not a folder",
  EISDIR: "it is a folder",
  ELOOP: "too many symbolic links",
  ENAMETOOLONG: "the name is too long",
  EEXIST: "a file of that name is in the way",
};

/** Errors of the file system (exit 1); any other errno keeps the system's own text. */
const IO_PROBLEMS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  EIO: "input/output error",
};

/**
 * A failed file operation as one line: `what` names the file and the operation ("cannot write
 * --output x"), `intact` says what did not change. The errno is the `[CODE]`. Errors without an
 * errno, and errors already explained, are returned as they are.
 */
export function fileError(error: unknown, what: string, intact: string): unknown {
  if (error instanceof ExitError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !/^E[A-Z]+$/.test(code)) return error;
  const path = PATH_PROBLEMS[code];
  if (path) return new ExitError(EXIT.USAGE, `${what}: ${path}; ${intact}`, code);
  const io = IO_PROBLEMS[code] ?? (error as Error).message;
  return new ExitError(EXIT.FAILURE, `${what}: ${io}; ${intact}`, code);
}

/** The store's files as the file system sees them, under its path as given and as resolved
 * (SQLite keeps -wal/-shm/-journal next to the file a symlinked store points at). */
function storeFiles(store: string): Array<ResolvedPath & { label: string }> {
  const bases = new Set([nodePath.resolve(store)]);
  try {
    bases.add(resolvePath(store).real);
  } catch {
    // The store's folder does not resolve: its path as given is all there is to compare.
  }
  const out: Array<ResolvedPath & { label: string }> = [];
  for (const base of bases) {
    for (const { path, label } of [{ path: base, label: "" }, ...companionsOf(base)]) {
      let resolved: ResolvedPath;
      try {
        resolved = resolvePath(path);
      } catch {
        resolved = { given: path, real: path, stat: undefined };
      }
      out.push({ ...resolved, label });
    }
  }
  return out;
}

/**
 * Refuse `target` (exit 2) when it is the store at `store` or one of its files: by resolved path,
 * or by device and inode when it exists. `what` names the argument ("--output x"), `intact` says
 * what did not change. A store on a server (`store` undefined) has no files here to protect.
 */
export function refuseStoreFiles(
  target: Pick<ResolvedPath, "stat"> & { real?: string },
  store: string | undefined,
  what: string,
  intact: string,
): void {
  if (store === undefined) return;
  for (const file of storeFiles(store)) {
    const samePath = file.real === target.real;
    if (!samePath && !(file.stat && target.stat && sameFile(file.stat, target.stat))) continue;
    const how = samePath || target.real === undefined ? "" : ` (a hard link to ${file.real})`;
    const which = file.label ? `a file of the store ${store}, ${file.label}` : `the store ${store} itself`;
    throw new ExitError(
      EXIT.USAGE,
      `${what} is ${which}${how}, which only the store itself may write; ${intact}. Choose another file.`,
      "STORE_FILE",
    );
  }
}

/**
 * Refuse `target` (exit 2) when it is a SQLite database, WAL or journal, or a file SQLite keeps
 * next to a database (core's rule, the one `store.backup` applies to its destination). Run it only
 * after `refuseStoreFiles`, before the store is opened: it reads the first bytes of the file.
 */
export function refuseDatabases(target: ResolvedPath, what: string, intact: string): void {
  refuseSqliteFile(sqliteFileOf(nodeFsHost, target.real), what, intact);
}

/** How many first bytes tell a SQLite file (its database header, WAL or journal magic). */
export const SQLITE_HEAD_BYTES = 16;

/** `refuseDatabases` for input read as a stream (stdin, a FIFO), by its first bytes. */
export function refuseStreamedDatabases(head: Uint8Array, what: string, intact: string): void {
  const info = { kind: "file" as const, mode: 0o600, size: head.length };
  const reader = { stat: () => info, readBytes: () => head };
  // "-" is named like no companion file: only the content decides.
  refuseSqliteFile(sqliteFileOf(reader, "-"), what, intact);
}

function refuseSqliteFile(file: SqliteFile | undefined, what: string, intact: string): void {
  if (!file) return;
  const why = file.kind === "companion" ? "which only SQLite may write" : "not a JSONL file";
  throw new ExitError(
    EXIT.USAGE,
    `${what} is ${file.description}, ${why}; ${intact}. Choose another file.`,
    "DATABASE_FILE",
  );
}
