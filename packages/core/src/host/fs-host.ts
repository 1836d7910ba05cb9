/**
 * `Host` on `node:fs`, `node:os` and the global `process` — which Node, Bun and Deno all
 * provide, so every adapter shares this one implementation. The `fs` and `os` modules come from
 * getters, each called on first use: `nodeFsHost` (node-fs.ts) hands over statically imported ones,
 * `lazyNodeFsHost` loads them with `process.getBuiltinModule` only when a call needs them.
 *
 * Why both: loading `node:fs` is free on Node (it is part of its start-up) but costs Deno
 * 4–6 ms, a third of what sessiondb adds to a short process there. On Deno the calls every
 * open and write makes (`stat` and `canWrite` of the store file, see store/open.ts `preflight`;
 * `realpath` and `fileId`, which tell whether the file was replaced, see store.ts) are
 * answered by Deno's own file API instead, so a Deno process that only opens, reads and writes
 * never loads `node:fs`; the rest (file modes, the admission lock's files, backups) loads it
 * when first called. The module imports nothing itself (it is part of the driver entry, which
 * imports nothing runtime-specific); it reads the runtime's global `process` when called.
 */
import type * as NodeFs from "node:fs";
import type * as NodeOs from "node:os";
import type * as NodeWorkerThreads from "node:worker_threads";
import { DriverUnavailableError } from "../errors.js";
import type { Host, PathInfo } from "./host.js";

/** The built-in modules the host works with, each loaded by its own call on first use: every
 * open needs `fs` (outside Deno), but only the admission lock's holder record needs `os` (its
 * hostname), and taking `node:os` cost 0.3–0.8 ms of each process's open on Node 20 and 24. */
export interface FsModules {
  fs(): typeof NodeFs;
  os(): typeof NodeOs;
}

/** What the host reads of Deno's file API (structural: core does not depend on Deno's types). */
interface DenoFileInfo {
  isFile: boolean;
  isDirectory: boolean;
  /** Raw `st_mode`, file-type bits included; null on Windows. */
  mode: number | null;
  size: number;
  uid: number | null;
  gid: number | null;
  dev: number;
  /** null on Windows. */
  ino: number | null;
}
interface DenoFileApi {
  statSync(path: string): DenoFileInfo;
  realPathSync(path: string): string;
  chmodSync(path: string, mode: number): void;
  uid(): number | null;
  gid(): number | null;
}

function detectRuntime(): string {
  const g = globalThis as Record<string, unknown>;
  if (g.Bun !== undefined) return "bun";
  if (g.Deno !== undefined) return "deno";
  return "node";
}

const runtime = detectRuntime();
const deno = runtime === "deno" ? (globalThis as { Deno?: Partial<DenoFileApi> }).Deno : undefined;
/** Deno's file API when it has every call used here (a Deno that lacks one uses node:fs). */
const denoFiles: DenoFileApi | undefined =
  typeof deno?.statSync === "function" &&
  typeof deno.realPathSync === "function" &&
  typeof deno.chmodSync === "function" &&
  typeof deno.uid === "function" &&
  typeof deno.gid === "function"
    ? (deno as DenoFileApi)
    : undefined;

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

function pathInfo(isFile: boolean, isDirectory: boolean, mode: number, size: number): PathInfo {
  const kind = isFile ? "file" : isDirectory ? "directory" : "other";
  return { kind, mode: mode & 0o777, size };
}

/** `onLinux()`'s answer, once asked. */
let linux: boolean | undefined;

/**
 * Whether this is Linux, where `realpath` is the C library's: glibc reads each component's link
 * (readlink) and musl resolves an O_PATH descriptor, whose close drops none of the process's
 * POSIX locks — so the store's own file can be resolved while SQLite holds locks on it. It costs
 * a writable open about 15 µs less than Node's JavaScript walk (an lstat and path arithmetic per
 * component). Elsewhere the JavaScript walk stays: it only ever lstats, and a platform's
 * realpath(3) that opened and closed the file would drop SQLite's locks.
 */
function onLinux(): boolean {
  // Asked on first use, never at import: on Deno the first touch of `globalThis.process` loads
  // its Node compatibility layer, which cost every import of the Deno adapter ~8 ms.
  linux ??= (globalThis as { process?: { platform?: unknown } }).process?.platform === "linux";
  return linux;
}

/** The part of the global `process` (Node, Bun, Deno) the host uses. */
interface HostProcess {
  pid: number;
  versions?: Record<string, string | undefined>;
  getBuiltinModule?: (id: string) => unknown;
}

function hostProcess(): HostProcess {
  const found = (globalThis as { process?: HostProcess }).process;
  if (!found) throw new Error("the file-system host needs a runtime with a global process (Node, Bun, Deno)");
  return found;
}

/** A built-in module from `process.getBuiltinModule` (Node ≥ 20.16 and ≥ 22.3, Bun, Deno ≥ 2.1). */
function builtinModule(id: string): unknown {
  const process = hostProcess();
  const getBuiltin = process.getBuiltinModule;
  if (typeof getBuiltin !== "function") {
    // Typed, so the open passes it on as it is: the fix is the runtime, not the file.
    const node = process.versions?.node;
    const running = node === undefined ? "" : ` (this is Node ${node})`;
    throw new DriverUnavailableError(
      `sessiondb needs process.getBuiltinModule, which this runtime lacks${running}: run Node ≥ 20.16 (or ≥ 22.3), Bun, or Deno ≥ 2.1.`,
    );
  }
  return getBuiltin.call(process, id);
}

/** The host's modules from `process.getBuiltinModule`. */
const builtinModules: FsModules = {
  fs: () => builtinModule("node:fs") as typeof NodeFs,
  os: () => builtinModule("node:os") as typeof NodeOs,
};

/** The background flusher (`Host.flushInBackground`): a worker thread evaluated from this
 * source, so there is no file to ship or resolve. It flushes on a timer until told to stop, then
 * flushes once more, closes its descriptor (a worker's descriptors outlive it) and reports how
 * many flushes it made. */
const FLUSHER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const fd = fs.openSync(workerData.path, "r+");
let flushes = 0;
// A flush that fails stops the flushing; the backup's own sync of the finished copy reports it.
const flush = () => { try { fs.fdatasyncSync(fd); flushes++; } catch { clearInterval(timer); } };
const timer = setInterval(flush, workerData.everyMs);
parentPort.once("message", () => {
  clearInterval(timer);
  flush();
  fs.closeSync(fd);
  parentPort.postMessage(flushes);
});
parentPort.postMessage("ready");
`;

/** Start the background flusher of `path`; rejects where there are no worker threads or the
 * worker could not open the file. */
function flushInBackground(path: string, everyMs: number): Promise<{ stop(): Promise<number> }> {
  const threads = hostProcess().getBuiltinModule?.("node:worker_threads") as
    | typeof NodeWorkerThreads
    | undefined;
  if (!threads?.Worker) return Promise.reject(new Error("this runtime has no worker threads"));
  const worker = new threads.Worker(FLUSHER_SOURCE, { eval: true, workerData: { path, everyMs } });
  // Listened to from the start: a worker that fails while this thread is blocked in SQLite must
  // not become an unhandled 'error' event.
  const ended = new Promise<never>((_, reject) => {
    worker.on("error", reject);
    worker.on("exit", (code) => reject(new Error(`the flushing worker exited (${code})`)));
  });
  ended.catch(() => {});
  const next = () =>
    Promise.race([new Promise<unknown>((resolve) => worker.once("message", resolve)), ended]);
  const stop = async (): Promise<number> => {
    try {
      const answer = next();
      worker.postMessage("stop");
      return Number(await answer);
    } finally {
      await worker.terminate();
    }
  };
  return next().then(
    () => ({ stop }),
    async (error: unknown) => {
      await worker.terminate();
      throw error;
    },
  );
}

/** A `Host` over the modules `load` gives, each asked for once, by the first call that needs it. */
export function createFsHost(load: FsModules): Host {
  let loadedFs: typeof NodeFs | undefined;
  let loadedOs: typeof NodeOs | undefined;
  const fsModule = (): typeof NodeFs => {
    loadedFs ??= load.fs();
    return loadedFs;
  };
  const osModule = (): typeof NodeOs => {
    loadedOs ??= load.os();
    return loadedOs;
  };

  /** Whether `path` sits on a file system mounted read-only. Deno computes `access()` from the
   * permission bits, which cannot see the mount; setting a path's mode to the mode it already
   * has changes nothing (no descriptor is opened) but fails with EROFS there. */
  function onReadOnlyMount(path: string, mode?: number): boolean {
    try {
      if (denoFiles && mode !== undefined) denoFiles.chmodSync(path, mode & 0o7777);
      else {
        const fs = fsModule();
        fs.chmodSync(path, fs.statSync(path).mode & 0o7777);
      }
      return false;
    } catch (error) {
      return codeOf(error) === "EROFS";
    }
  }

  /** `canWrite` through Deno's file API: what Deno's `node:fs` `accessSync(path, W_OK)` computes
   * (the owner's, the group's or everyone's write bit, picked by the process's uid and gid),
   * then the read-only-mount check. Undefined when Deno cannot say (Windows: no mode). */
  function denoCanWrite(files: DenoFileApi, path: string): boolean | undefined {
    let info: DenoFileInfo;
    try {
      info = files.statSync(path);
    } catch {
      return false;
    }
    const mode = info.mode;
    if (mode === null) return undefined;
    let writable: boolean;
    try {
      const bits = info.uid === files.uid() ? mode >> 6 : info.gid === files.gid() ? mode >> 3 : mode;
      writable = (bits & 0o2) !== 0;
    } catch (error) {
      // uid()/gid() take --allow-sys; without it, judge by the permission bits and leave the
      // last word to SQLite (it reports READONLY). The check only exists to give a clearer
      // error sooner.
      if ((error as { name?: unknown } | null)?.name !== "NotCapable") return false;
      writable = (mode & 0o222) !== 0;
    }
    return writable && !onReadOnlyMount(path, mode);
  }

  return {
    runtime,
    get pid() {
      return hostProcess().pid;
    },
    hostname() {
      try {
        return osModule().hostname();
      } catch {
        // Deno without --allow-sys=hostname: diagnostics do without it.
        return undefined;
      }
    },
    stat(path): PathInfo | undefined {
      try {
        if (denoFiles) {
          const info = denoFiles.statSync(path);
          if (info.mode !== null) return pathInfo(info.isFile, info.isDirectory, info.mode, info.size);
        }
        // A missing path answers undefined instead of throwing: a new store's open asks about its
        // file and its folder, and building the ENOENT error cost more than the stat itself.
        const info = fsModule().statSync(path, { throwIfNoEntry: false });
        return info && pathInfo(info.isFile(), info.isDirectory(), info.mode, info.size);
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    canWrite(path) {
      const answer = denoFiles ? denoCanWrite(denoFiles, path) : undefined;
      if (answer !== undefined) return answer;
      const fs = fsModule();
      try {
        fs.accessSync(path, fs.constants.W_OK);
        // Node's and Bun's access() asks the kernel, which answers EROFS for a read-only mount.
        return runtime !== "deno" || !onReadOnlyMount(path);
      } catch (error) {
        // Deno's access() reads the process's uid/gid, which takes --allow-sys: see denoCanWrite.
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
        fsModule().chmodSync(path, mode);
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    },
    writeFileAtomic(path, text) {
      const fs = fsModule();
      const temporary = `${path}.${hostProcess().pid}.${Date.now()}.tmp`;
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
        return fsModule().readFileSync(path, "utf8");
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    hasRoom(dir, bytes) {
      const fs = fsModule();
      const probe = `${dir}/.sessiondb-room-${hostProcess().pid}-${Date.now()}.tmp`;
      try {
        fs.writeFileSync(probe, new Uint8Array(bytes), { mode: 0o600 });
        return true;
      } catch (error) {
        const code = codeOf(error);
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
      return fsModule().lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
    },
    realpath(path) {
      try {
        // Deno's own API where there is one: every writable open asks (store.ts).
        if (denoFiles) return denoFiles.realPathSync(path);
        const fs = fsModule();
        return onLinux() ? fs.realpathSync.native(path) : fs.realpathSync(path);
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    fileId(path) {
      // Deno's own API where it can answer: every write of a Deno store asks (store.ts).
      if (denoFiles) {
        try {
          const info = denoFiles.statSync(path);
          if (info.ino !== null) return `${info.dev}:${info.ino}`;
        } catch (error) {
          if (isMissing(error)) return undefined;
          throw error;
        }
      }
      const info = fsModule().statSync(path, { throwIfNoEntry: false });
      return info ? `${info.dev}:${info.ino}` : undefined;
    },
    syncFile(path) {
      const fs = fsModule();
      const fd = fs.openSync(path, "r+");
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    },
    holdFile(path) {
      const fs = fsModule();
      const fd = fs.openSync(path, "r+");
      return {
        sync: () => fs.fdatasyncSync(fd),
        close: () => fs.closeSync(fd),
      };
    },
    flushInBackground,
    syncDirectory(path) {
      const fs = fsModule();
      let fd: number | undefined;
      try {
        fd = fs.openSync(path, "r");
        fs.fsyncSync(fd);
      } catch (error) {
        // Windows cannot open or sync a directory; there the rename is as durable as it gets.
        const code = codeOf(error);
        if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL" && code !== "EBADF") throw error;
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    },
    link(existing, to) {
      fsModule().linkSync(existing, to);
    },
    rename(from, to) {
      fsModule().renameSync(from, to);
    },
    remove(path) {
      fsModule().rmSync(path, { force: true });
    },
    readBytes(path, offset, length) {
      const fs = fsModule();
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
      fsModule().truncateSync(path, size);
    },
    copyFile(from, to) {
      const fs = fsModule();
      fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
      fs.chmodSync(to, 0o600);
    },
  };
}

/** The shared host, loading `node:fs` and `node:os` on first use with `process.getBuiltinModule`
 * (Node ≥ 20.16 and ≥ 22.3, Bun, Deno ≥ 2.1). The Deno adapter uses it; see the module comment. */
export const lazyNodeFsHost: Host = createFsHost(builtinModules);
