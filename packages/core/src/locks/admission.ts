/**
 * The FTS admission lock (spec §6): at most one full structural FTS rebuild at a time, across
 * every process and runtime that opens the store.
 *
 * The primitive is SQLite's own file locking on a separate, tiny lock database next to the store
 * (`<db>.fts-rebuild.lock`, rollback-journal mode, never WAL), held by `BEGIN EXCLUSIVE`:
 * - the kernel drops the lock when the holder dies, `kill -9` included — no stale lock files;
 * - it behaves the same on Node, Bun and Deno, because it is the same SQLite locking protocol;
 * - POSIX record locks are per process and not inherited by forked children;
 * - it is opened with the store's own driver: one SQLite build per process, so SQLite's
 *   in-process lock bookkeeping also excludes a second connection in the same process.
 * It is never the database file or its -wal/-shm: closing any extra descriptor of those would
 * drop the store's own locks ("How To Corrupt", §2.2).
 *
 * Fail closed and classify before waiting: only BUSY/LOCKED mean another connection holds it and
 * are worth polling for; anything else is an environment failure reported at once with its code.
 */
import { ADMISSION_POLL_MS, STORE_FILE_MODE } from "../constants.js";
import type { SqliteConnection, SqliteDriver } from "../driver.js";
import { sleepSync } from "../engine/sleep.js";
import { isContention, SqliteError, type SqliteResultCode } from "../errors.js";
import type { AdmissionHolder, AsyncAdmission, AsyncAdmissionAnswer } from "../executor.js";
import type { Host } from "../host/host.js";
import { isInMemoryPath } from "../sqlite-path.js";
import { beginTransaction, rollbackQuietly } from "../transaction.js";
import { localHolder } from "./local-holds.js";

export type Admission =
  | { admitted: true; release(): void }
  | {
      admitted: false;
      /** "held": another connection holds it (BUSY/LOCKED until the timeout). "environment":
       * the lock could not be taken at all, and waiting would not help. */
      reason: "held" | "environment";
      /** The SQLite result code of the last failure, when it was a SQLite error. */
      code: SqliteResultCode | undefined;
      waitedMs: number;
      message: string;
      /** The holder record, when one was readable (only for "held"). */
      holder?: AdmissionHolder;
    };

export interface AdmissionOptions {
  /** How long to wait for a held lock; 0 = exactly one non-blocking probe. */
  timeoutMs: number;
  /** Writes and reads the holder record; without it there is no record. */
  host?: Host;
  /** Poll interval while waiting; default ADMISSION_POLL_MS. */
  pollMs?: number;
  /** Blocking sleep (tests inject one). */
  sleep?: (ms: number) => void;
  /** Clock in ms (tests inject one). */
  now?: () => number;
}

/** The lock file next to the store. */
export function admissionLockPath(dbPath: string): string {
  return `${dbPath}.fts-rebuild.lock`;
}

/** The holder record beside the lock file (diagnostics). */
export function holderPath(dbPath: string): string {
  return `${admissionLockPath(dbPath)}.holder.json`;
}

function protectLockFile(lockPath: string, host: Host | undefined): void {
  try {
    host?.chmod(lockPath, STORE_FILE_MODE);
  } catch {
    // Another user's lock file is not ours to change: the lock works all the same.
  }
}

/** Close without letting a failure hide the real outcome; closing releases the file lock. */
function closeQuietly(conn: SqliteConnection | undefined): void {
  try {
    conn?.close();
  } catch {
    // The lock dies with the connection or, at worst, with the process.
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** "pid 123 (node, better-sqlite3, host build-7, since 2025-…)". */
export function formatAdmissionHolder(holder: AdmissionHolder): string {
  const parts = [holder.runtime, holder.driver];
  if (holder.host) parts.push(`host ${holder.host}`);
  parts.push(`since ${holder.acquiredAt}`);
  return `pid ${holder.pid} (${parts.join(", ")})`;
}

/**
 * The last recorded holder, or undefined (no host, no record, unreadable, or released).
 * A holder that died by `kill -9` leaves its record behind until the next holder replaces it,
 * so this names who took the lock last, which is usually but not always who holds it now.
 */
export function readAdmissionHolder(dbPath: string, host: Host | undefined): AdmissionHolder | undefined {
  if (!host) return undefined;
  try {
    const text = host.readFile(holderPath(dbPath));
    if (text === undefined) return undefined;
    const data = JSON.parse(text) as Record<string, unknown>;
    if (data.releasedAt !== undefined) return undefined;
    const { pid, runtime, host: hostname, driver, acquiredAt } = data;
    if (typeof pid !== "number" || typeof runtime !== "string" || typeof driver !== "string")
      return undefined;
    if (typeof acquiredAt !== "string") return undefined;
    const holder: AdmissionHolder = { pid, runtime, driver, acquiredAt };
    if (typeof hostname === "string") holder.host = hostname;
    return holder;
  } catch {
    return undefined;
  }
}

/** A sentence for StoreBusyError and diagnostics naming the recorded holder, if any. */
export function describeAdmissionHolder(dbPath: string, host: Host | undefined): string | undefined {
  const holder = readAdmissionHolder(dbPath, host);
  return holder ? `The FTS admission lock was last taken by ${formatAdmissionHolder(holder)}.` : undefined;
}

function writeHolderRecord(host: Host | undefined, dbPath: string, record: object): void {
  if (!host) return;
  try {
    host.writeFileAtomic(holderPath(dbPath), `${JSON.stringify(record)}\n`);
  } catch {
    // Diagnostics only: a read-only directory for the sidecar must not fail the admission.
  }
}

/** The store's own files, which a lock path must never reach. */
const STORE_SUFFIXES = ["", "-wal", "-shm", "-journal"];

/**
 * Why `lockPath` is not a lock file sessiondb can use, in words, or undefined when it is one (or
 * does not exist yet). A lock path that reaches the store — a symbolic or hard link to it or to
 * its -wal/-shm/-journal — would make the rebuild wait on the store's own lock until its patience
 * ran out, and opening it would give this process a second descriptor of the store, whose close
 * drops every POSIX lock SQLite holds there. We never make a link or anything but a regular
 * file at the lock path, so such things are refused before SQLite opens them.
 */
function lockPathProblem(dbPath: string, lockPath: string, host: Host): string | undefined {
  try {
    const id = host.fileId(lockPath);
    const storeFile =
      id === undefined
        ? undefined
        : STORE_SUFFIXES.map((suffix) => `${dbPath}${suffix}`).find((file) => host.fileId(file) === id);
    if (host.isSymbolicLink(lockPath)) {
      const target = storeFile
        ? `the store's own file ${storeFile}`
        : (host.realpath(lockPath) ?? "a path that does not exist");
      return `it is a symbolic link to ${target}, not a lock file sessiondb made`;
    }
    if (storeFile) return `it is the store's own file ${storeFile} under another name (a hard link)`;
    // A FIFO or a device could block SQLite's first read for good. (A directory is left to
    // SQLite, which refuses it at once with CANTOPEN, the code callers are told.)
    if (host.stat(lockPath)?.kind === "other") return "it is not a regular file";
    return undefined;
  } catch (error) {
    // A symlink loop (ELOOP), a component we may not search (EACCES), …
    return `it cannot be examined (${error instanceof Error ? error.message : String(error)})`;
  }
}

function errorSummary(error: unknown): string {
  if (error instanceof SqliteError) return `${error.code} (${error.message})`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Try to take the admission lock, waiting up to `timeoutMs` while another connection holds it.
 * Never throws for lock or file problems: the answer says whether the caller was admitted, and
 * if not, why ("held" or "environment"), with the real result code. Call `release()` when done
 * (it is idempotent and never throws).
 */
export function acquireAdmission(driver: SqliteDriver, dbPath: string, options: AdmissionOptions): Admission {
  // An in-memory store is private to one connection: there is nothing to exclude across processes.
  if (isInMemoryPath(dbPath)) return { admitted: true, release() {} };
  const lockPath = admissionLockPath(dbPath);
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepSync;
  const pollMs = Math.max(1, options.pollMs ?? ADMISSION_POLL_MS);
  const started = now();
  const deadline = started + Math.max(0, options.timeoutMs);
  let conn: SqliteConnection | undefined;

  const problem = options.host && lockPathProblem(dbPath, lockPath, options.host);
  if (problem) {
    return {
      admitted: false,
      reason: "environment",
      code: undefined,
      waitedMs: 0,
      message: `The FTS admission lock ${lockPath} cannot be used: ${problem}. Nothing was opened through it and the store is untouched; waiting would not help. The rebuild was deferred and search stays correct; remove ${lockPath} (sessiondb creates a new one) and retry.`,
    };
  }

  for (;;) {
    try {
      if (!conn) {
        conn = driver.open(lockPath, { readOnly: false });
        // Private like the store (SQLite creates it 0644 under the usual umask); by path, before
        // the first lock, so the -journal SQLite makes beside it inherits the mode.
        protectLockFile(lockPath, options.host);
        // Never let SQLite's busy handler wait inside a probe: the poll loop owns the waiting.
        conn.exec("PRAGMA busy_timeout = 0");
      }
      // Takes the EXCLUSIVE file lock at once, even on the empty lock file: a write transaction
      // on a zero-page database initializes page 1 in the cache (and opens a -journal), but
      // nothing is ever written to the lock file itself — it stays 0 bytes.
      beginTransaction(conn, "exclusive");
      break;
    } catch (error) {
      const at = now();
      if (!isContention(error)) {
        closeQuietly(conn);
        const code = error instanceof SqliteError ? error.resultCode : undefined;
        return {
          admitted: false,
          reason: "environment",
          code,
          waitedMs: at - started,
          message: `The FTS admission lock ${lockPath} could not be taken: ${errorSummary(error)}. This is a problem with the lock file or its directory (permissions, a directory or non-directory in the way, a full or read-only disk), not lock contention, so waiting would not help. The rebuild was deferred and search stays correct; fix the lock path and retry.`,
        };
      }
      // A failed BEGIN EXCLUSIVE stops before SQLite leaves autocommit, so there is no
      // transaction to roll back; the same connection simply probes again.
      const here = localHolder(dbPath, options.host, "admission");
      if (here !== undefined) {
        closeQuietly(conn);
        return {
          admitted: false,
          reason: "held",
          code: error.resultCode,
          waitedMs: at - started,
          message: `The FTS admission lock ${lockPath} is held in this thread, by ${here}: it is let go only when this thread returns to that code, so it was not waited for. The rebuild was deferred and search stays correct; it will be retried later.`,
        };
      }
      if (at >= deadline) {
        closeQuietly(conn);
        const holder = readAdmissionHolder(dbPath, options.host);
        const by = holder ? ` (holder record: ${formatAdmissionHolder(holder)})` : "";
        const waited = options.timeoutMs > 0 ? ` after waiting ${seconds(at - started)}` : "";
        const result: Admission = {
          admitted: false,
          reason: "held",
          code: error.resultCode,
          waitedMs: at - started,
          message: `The FTS admission lock ${lockPath} is held by another process${by}; not admitted${waited}. The rebuild was deferred and search stays correct; it will be retried later.`,
        };
        if (holder) result.holder = holder;
        return result;
      }
      sleep(Math.min(pollMs, deadline - at));
    }
  }

  const held = conn;
  const host = options.host;
  const holder: AdmissionHolder | undefined = host && {
    pid: host.pid,
    runtime: host.runtime,
    driver: driver.name,
    acquiredAt: new Date(now()).toISOString(),
  };
  if (holder && host) {
    const hostname = host.hostname();
    if (hostname) holder.host = hostname;
    writeHolderRecord(host, dbPath, holder);
  }
  let released = false;
  return {
    admitted: true,
    release() {
      if (released) return;
      released = true;
      // Mark the record released while still holding the lock, so this write can never land on
      // top of the next holder's record.
      if (holder) writeHolderRecord(host, dbPath, { ...holder, releasedAt: new Date(now()).toISOString() });
      // Closing the connection releases the file lock even if this rollback fails.
      rollbackQuietly(held);
      closeQuietly(held);
    },
  };
}

/**
 * The lock-file admission for an async store whose engine reaches a local file (an embedded
 * replica, the in-process test double): the same lock file as the sync store's, so both kinds
 * of store exclude each other. Waits by polling with timers, never blocking the event loop.
 */
export function lockFileAdmission(driver: SqliteDriver, dbPath: string, host?: Host): AsyncAdmission {
  return {
    async acquire({ timeoutMs }) {
      const started = Date.now();
      for (;;) {
        const left = Math.max(0, started + timeoutMs - Date.now());
        const admission = acquireAdmission(driver, dbPath, { timeoutMs: 0, host });
        if (admission.admitted) {
          return {
            admitted: true,
            lease: { renew: async () => undefined, release: async () => admission.release() },
          };
        }
        if (admission.reason !== "held" || left === 0) {
          const answer: AsyncAdmissionAnswer = {
            admitted: false,
            reason: admission.reason,
            message: admission.message,
          };
          if (admission.holder) answer.holder = admission.holder;
          if (admission.code) answer.code = admission.code;
          return answer;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(ADMISSION_POLL_MS, left)));
      }
    },
  };
}
