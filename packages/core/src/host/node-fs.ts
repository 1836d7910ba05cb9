/**
 * `Host` on `node:fs`, `node:os` and `node:process` — modules that Node, Bun and Deno all
 * provide, so every adapter shares this one implementation.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import process from "node:process";
import type { Host, PathInfo } from "./host.js";

function detectRuntime(): string {
  const g = globalThis as Record<string, unknown>;
  if (g.Bun !== undefined) return "bun";
  if (g.Deno !== undefined) return "deno";
  return "node";
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** Whether `path` sits on a file system mounted read-only. Deno computes `access()` from the
 * permission bits, which cannot see the mount; setting a path's mode to the mode it already has
 * changes nothing (no descriptor is opened) but fails with EROFS there. */
function onReadOnlyMount(path: string): boolean {
  try {
    fs.chmodSync(path, fs.statSync(path).mode & 0o7777);
    return false;
  } catch (error) {
    return (error as { code?: unknown } | null)?.code === "EROFS";
  }
}

/** Whether `path` is a directory (a driver's `isDirectory`); false when it does not exist. */
export function isDirectoryPath(path: string): boolean {
  return fs.statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

const runtime = detectRuntime();

/** The shared `node:fs` host. */
export const nodeFsHost: Host = {
  runtime,
  pid: process.pid,
  hostname() {
    try {
      return os.hostname();
    } catch {
      // Deno without --allow-sys=hostname: diagnostics do without it.
      return undefined;
    }
  },
  stat(path): PathInfo | undefined {
    try {
      const info = fs.statSync(path);
      const kind = info.isFile() ? "file" : info.isDirectory() ? "directory" : "other";
      return { kind, mode: info.mode & 0o777, size: info.size };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  },
  canWrite(path) {
    try {
      fs.accessSync(path, fs.constants.W_OK);
      // Node's and Bun's access() asks the kernel, which answers EROFS for a read-only mount.
      return runtime !== "deno" || !onReadOnlyMount(path);
    } catch (error) {
      // Deno's access() reads the process's uid/gid, which takes --allow-sys; without it, judge
      // by the permission bits and leave the last word to SQLite (it reports READONLY). The
      // check only exists to give a clearer error sooner.
      if ((error as { name?: unknown } | null)?.name !== "NotCapable") return false;
      try {
        return (fs.statSync(path).mode & 0o222) !== 0 && !onReadOnlyMount(path);
      } catch {
        return false;
      }
    }
  },
  chmod(path, mode) {
    try {
      fs.chmodSync(path, mode);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  },
  writeFileAtomic(path, text) {
    const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
    try {
      fs.writeFileSync(temporary, text, { mode: 0o600 });
      fs.renameSync(temporary, path);
    } catch (error) {
      try {
        fs.rmSync(temporary, { force: true });
      } catch {
        // best effort: the temporary file is only diagnostics
      }
      throw error;
    }
  },
  readFile(path) {
    try {
      return fs.readFileSync(path, "utf8");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  },
  hasRoom(dir, bytes) {
    const probe = `${dir}/.sessiondb-room-${process.pid}-${Date.now()}.tmp`;
    try {
      fs.writeFileSync(probe, new Uint8Array(bytes), { mode: 0o600 });
      return true;
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      return code !== "ENOSPC" && code !== "EDQUOT";
    } finally {
      try {
        fs.rmSync(probe, { force: true });
      } catch {
        // Asked while explaining another failure: never replace that one.
      }
    }
  },
  isSymbolicLink(path) {
    return fs.lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  },
  realpath(path) {
    try {
      return fs.realpathSync(path);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  },
  fileId(path) {
    const info = fs.statSync(path, { throwIfNoEntry: false });
    return info ? `${info.dev}:${info.ino}` : undefined;
  },
  syncFile(path) {
    const fd = fs.openSync(path, "r+");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  syncDirectory(path) {
    let fd: number | undefined;
    try {
      fd = fs.openSync(path, "r");
      fs.fsyncSync(fd);
    } catch (error) {
      // Windows cannot open or sync a directory; there the rename is as durable as it gets.
      const code = (error as { code?: unknown } | null)?.code;
      if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL" && code !== "EBADF") throw error;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  },
  link(existing, to) {
    fs.linkSync(existing, to);
  },
  rename(from, to) {
    fs.renameSync(from, to);
  },
  remove(path) {
    fs.rmSync(path, { force: true });
  },
  readBytes(path, offset, length) {
    const fd = fs.openSync(path, "r");
    try {
      const buffer = new Uint8Array(length);
      const read = fs.readSync(fd, buffer, 0, length, offset);
      return buffer.subarray(0, read);
    } finally {
      fs.closeSync(fd);
    }
  },
  resize(path, size) {
    fs.truncateSync(path, size);
  },
  copyFile(from, to) {
    fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
    fs.chmodSync(to, 0o600);
  },
};
