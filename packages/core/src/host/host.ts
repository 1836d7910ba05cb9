/**
 * The host seam: the few file-system and process facts core needs besides SQLite itself
 * (permissions by path, open preflight, the admission lock's holder record). Core stays free of
 * runtime imports; `@sessiondb/core/host` supplies an implementation on `node:fs`, which Node,
 * Bun and Deno all provide.
 *
 * Nothing here ever opens the database file or its -wal/-shm: closing any descriptor of the
 * database file drops every POSIX lock SQLite holds in the process ("How To Corrupt", §2.2).
 */

/** What a path is. */
export interface PathInfo {
  kind: "file" | "directory" | "other";
  /** Permission bits (`mode & 0o777`). */
  mode: number;
  /** Size in bytes. */
  size: number;
}

/** File-system and process facts for one runtime. */
export interface Host {
  /** Runtime name for diagnostics: "node", "bun" or "deno". */
  readonly runtime: string;
  /** This process's id. */
  readonly pid: number;
  /** Host name for diagnostics, or undefined when not permitted (Deno without --allow-sys). */
  hostname(): string | undefined;
  /** What `path` is, or undefined when it does not exist. Never opens it. */
  stat(path: string): PathInfo | undefined;
  /** Whether this process may write `path` (an existing file or directory). */
  canWrite(path: string): boolean;
  /** Set permission bits by path; a missing file is ignored. */
  chmod(path: string, mode: number): void;
  /** Replace `path` with `text` atomically (write a sibling, then rename). */
  writeFileAtomic(path: string, text: string): void;
  /** Read a small text file, or undefined when it does not exist. */
  readFile(path: string): string | undefined;
  /** False when a new file of `bytes` does not fit in `dir` (ENOSPC, EDQUOT); true when it does
   * or when that cannot be told. Writes and removes a probe file of its own there. */
  hasRoom(dir: string, bytes: number): boolean;
  /** Whether `path` itself is a symbolic link (not followed; a dangling one counts). */
  isSymbolicLink(path: string): boolean;
  /** `path` with every symlink resolved, or undefined when it does not exist. */
  realpath(path: string): string | undefined;
  /** Device and inode of what `path` names (symlinks followed) as "dev:ino", or undefined when
   * nothing is there: two paths name the same file exactly when these are equal. */
  fileId(path: string): string | undefined;
  /** Flush a file this process wrote to stable storage. Never called on a store or its -wal/-shm
   * (closing the descriptor would drop SQLite's locks there). */
  syncFile(path: string): void;
  /** Keep `path` open to flush, step by step, what another handle of this process writes to it:
   * the online backup's copy, written by the binding's own connection. `sync` flushes the data
   * written so far; `close` only once that other handle is closed, since closing a descriptor
   * drops the process's POSIX locks on the file. Optional: without it a backup's copy reaches
   * the disk in one flush at its end. */
  holdFile?(path: string): { sync(): void; close(): void };
  /** Flush `path` to stable storage every `everyMs` from a worker thread, while this thread is
   * blocked in one long SQLite statement that writes it (a `VACUUM INTO` copy), until `stop`
   * (which flushes once more, closes the worker's descriptor and resolves with the number of
   * flushes). Start it only after the file exists and stop it before SQLite opens the file
   * again: the worker's descriptor is closed inside `stop`. Rejects where the runtime has no
   * worker threads. Optional: without it such a copy reaches the disk in one flush at its end. */
  flushInBackground?(path: string, everyMs: number): Promise<{ stop(): Promise<number> }>;
  /** Flush a directory's entries (after a rename); a no-op where directories cannot be synced. */
  syncDirectory(path: string): void;
  /** Give the file at `existing` a second name `to` (a hard link; `to` must not exist). */
  link(existing: string, to: string): void;
  /** Rename `from` to `to`, replacing `to` (atomic on one file system). */
  rename(from: string, to: string): void;
  /** Remove a file; a missing one is ignored. */
  remove(path: string): void;
  /** Copy a file byte for byte to a new `to` (mode 0600); only for files no connection of this
   * process has open. */
  copyFile(from: string, to: string): void;
  /** Up to `length` bytes of a file from `offset`; only for files no connection of this process
   * has open. */
  readBytes(path: string, offset: number, length: number): Uint8Array;
  /** Cut or extend (with zeros) a file this process wrote to `size` bytes. */
  resize(path: string, size: number): void;
}

/** The directory part of a path (POSIX or Windows separators). */
export function dirnameOf(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (cut < 0) return ".";
  if (cut === 0) return path.slice(0, 1);
  return path.slice(0, cut);
}
