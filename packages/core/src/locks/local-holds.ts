/**
 * Locks that a store of this thread keeps on its file while other code of the same thread runs:
 * the write lock of a `store.transaction` body (or, on a rollback-journal file, the read lock of
 * a read-only store's transaction), and the read snapshot of a backup of a rollback-journal store,
 * held until the copy settles on the event loop. Another store of this thread on that file that
 * meets such a lock cannot wait it out: the holder lets go only when this thread returns to it,
 * and a synchronous wait keeps the thread, so the wait could only end at its timeout (60 s for an
 * append). The patience loop asks `localHolder` when it meets a lock and gives up at once with
 * what holds it. Locks of other processes and other threads are waited for as before.
 *
 * The list lives on `globalThis`, so two copies of this module in one thread (an ESM and a CJS
 * build) see each other's locks; each worker thread has its own.
 */
import type { Host } from "../host/host.js";
import { isInMemoryPath } from "../sqlite-path.js";

/** Which lock: the store file's own, or its FTS admission lock file (locks/admission.ts). */
export type LocalLock = "store" | "admission";

/** One lock held across other code of this thread. */
interface LocalHold {
  readonly path: string;
  readonly host: Host | undefined;
  readonly lock: LocalLock;
  /** What holds it, completing "held by …". */
  readonly what: string;
}

const KEY = Symbol.for("sessiondb.localHolds");

function holds(): Set<LocalHold> {
  const scope = globalThis as { [KEY]?: Set<LocalHold> };
  scope[KEY] ??= new Set();
  return scope[KEY];
}

/** Record that a lock on `path` stays held while other code of this thread runs; call the
 * returned function when it is released. Nothing is recorded for an in-memory store (private to
 * its connection). */
export function holdLocally(
  path: string,
  host: Host | undefined,
  what: string,
  lock: LocalLock = "store",
): () => void {
  if (isInMemoryPath(path)) return () => {};
  const hold: LocalHold = { path, host, lock, what };
  const all = holds();
  all.add(hold);
  return () => {
    all.delete(hold);
  };
}

/** The same file: the same spelling, or (with a host) the same device and inode. */
function sameFile(a: string, b: string, host: Host | undefined): boolean {
  if (a === b) return true;
  if (!host) return false;
  const id = host.fileId(a);
  return id !== undefined && id === host.fileId(b);
}

/** What of this thread holds `lock` of the store at `path` (completing "held by …"), or
 * undefined. Asked only when a lock was met, so the file-identity look-ups cost nothing on the
 * usual path. */
export function localHolder(
  path: string,
  host: Host | undefined,
  lock: LocalLock = "store",
): string | undefined {
  const all = holds();
  if (all.size === 0 || isInMemoryPath(path)) return undefined;
  for (const hold of all) {
    if (hold.lock === lock && sameFile(hold.path, path, host ?? hold.host)) return hold.what;
  }
  return undefined;
}
