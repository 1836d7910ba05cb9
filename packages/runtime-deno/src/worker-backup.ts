/**
 * node:sqlite's online backup on Deno, run in a worker thread. Deno's `backup(db, path, { rate,
 * progress })` runs every step inside the one call and returns a settled promise (Deno 2.9: a
 * 474 MiB store, 118 steps of 1024 pages, no timer ran until the copy was done), so the calling
 * thread's event loop stood still for the whole copy: a SIGTERM, a timer aborting the backup or a
 * server's requests were only seen once the copy was complete. Here a worker opens the store
 * itself, read-only, holds one read snapshot of it and copies from that, so the calling thread
 * runs on meanwhile.
 *
 * The two threads step in lockstep: after each step the worker posts the progress and waits
 * until this thread has run `progress` (which reports, flushes the step's pages and throws to
 * stop: core's `onStep`), and goes on only if it did not throw. So steps, flushes and aborts
 * happen exactly as with a backup on this thread, and an abort stops the copy within one step
 * (core's are 1024 pages). The promise settles only once the worker closed both databases, so
 * the caller may remove the partial copy at once.
 *
 * The worker's snapshot is its own, and consistent: it holds every commit the caller's snapshot
 * holds, which core takes first and keeps to the end (in DELETE mode no writer commits meanwhile;
 * in WAL mode the worker's may hold later commits too). Taking it, the worker waits at most
 * `SNAPSHOT_WAIT_MS` for a lock (Deno would give a read-only connection 5 s, which no abort can
 * cut short). Core's snapshot already keeps the store readable, so only a lock this process holds
 * for a moment can be in the way: a write of the calling thread, refused because of the backup's
 * own hold, holds the write lock while it fails (the conformance suite does exactly that). A
 * source locked for longer fails with BUSY. A database without a file (`:memory:`) cannot be
 * opened by the worker and is copied on this thread as before.
 */
import type { NodeSqliteApiBackup } from "@sessiondb/core/driver";

/** The worker's turn word (an Int32 in shared memory): set by the worker before it posts a step,
 * then by this thread to say go on or stop. */
const WAITING = 0;
const GO_ON = 1;
const STOP = 2;

/** How long the worker waits for a lock while it takes its snapshot (see above). */
const SNAPSHOT_WAIT_MS = 1000;

/** The worker's module, from a data: URL (no file to ship or resolve, from npm or JSR; Deno
 * needs no permission to load it, and the worker has this thread's permissions). Given the task,
 * it posts `{ step }` after each step, then `{ failed }` or `{ done }` once its database is closed. */
const WORKER_URL = `data:text/javascript,${encodeURIComponent(`
import { DatabaseSync, backup } from "node:sqlite";
self.onmessage = async ({ data: { source, destination, rate, turn } }) => {
  const word = new Int32Array(turn);
  let db;
  let failure;
  try {
    db = new DatabaseSync(source, { readOnly: true });
    db.exec("PRAGMA busy_timeout = ${SNAPSHOT_WAIT_MS}; BEGIN");
    db.prepare("SELECT count(*) FROM sqlite_master").get();
    await backup(db, destination, {
      rate,
      progress(step) {
        Atomics.store(word, 0, ${WAITING});
        self.postMessage({ step });
        Atomics.wait(word, 0, ${WAITING});
        if (Atomics.load(word, 0) === ${STOP}) throw new Error("stopped by the caller");
      },
    });
  } catch (error) {
    const { name, message, code, errcode, errstr } = error ?? {};
    failure = { name, message: String(message ?? error), code, errcode, errstr };
  }
  try {
    db?.close();
  } catch {}
  self.postMessage(failure ? { failed: failure } : { done: true });
};
`)}`;

/** What the worker posts. */
type WorkerMessage =
  | { step: { totalPages: number; remainingPages: number } }
  | { failed: { name?: string; message: string; code?: unknown; errcode?: unknown; errstr?: unknown } }
  | { done: true };

/** Deno's Web Worker, structurally (this package type-checks without the DOM library). */
interface DenoWorker {
  postMessage(message: unknown): void;
  onmessage: ((event: { data: WorkerMessage }) => void) | null;
  onerror: ((event: { message: string; preventDefault(): void }) => void) | null;
  terminate(): void;
}
type DenoWorkerClass = new (url: string, options: { type: "module" }) => DenoWorker;

/** The binding's error as the worker saw it: its message, name and SQLite codes, which the
 * driver's error classification reads. */
function rebuiltError(failed: Extract<WorkerMessage, { failed: unknown }>["failed"]): Error {
  const { name, message, ...codes } = failed;
  const error = Object.assign(new Error(message), codes);
  if (name) error.name = name;
  return error;
}

/** `inThread` (node:sqlite's `backup`) moved to a worker thread for every database with a file. */
export function workerBackup(inThread: NodeSqliteApiBackup): NodeSqliteApiBackup {
  return async (source, destination, options) => {
    const file = (source as { location?(): string | null }).location?.();
    if (!file) return inThread(source, destination, options);
    const { Worker } = globalThis as unknown as { Worker: DenoWorkerClass };
    const turn = new SharedArrayBuffer(4);
    const word = new Int32Array(turn);
    const worker = new Worker(WORKER_URL, { type: "module" });
    // What `progress` threw: the worker stops at that step and the backup rejects with it.
    let stopped: { error: unknown } | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        worker.onmessage = ({ data: message }) => {
          if ("step" in message) {
            try {
              options.progress?.(message.step);
              Atomics.store(word, 0, GO_ON);
            } catch (error) {
              stopped = { error };
              Atomics.store(word, 0, STOP);
            }
            Atomics.notify(word, 0);
          } else if ("failed" in message) {
            reject(stopped ? stopped.error : rebuiltError(message.failed));
          } else {
            resolve();
          }
        };
        // An error the worker did not catch (it cannot load node:sqlite): handled here, or Deno
        // would end the process with it.
        worker.onerror = (event) => {
          event.preventDefault();
          reject(new Error(`the backup's worker thread failed: ${event.message}`));
        };
        worker.postMessage({ source: file, destination, rate: options.rate, turn });
      });
    } finally {
      worker.terminate();
    }
  };
}
