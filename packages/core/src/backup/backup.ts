/**
 * `store.backup(dest)`: a consistent copy of a live store, written the way a backup must be —
 * to a temporary name beside the destination, synced, made private, renamed into place, the
 * folder synced — so a crash leaves either the old destination or the whole new copy, never
 * half of one. The store file itself is only ever read through SQLite.
 */
import type { SqliteConnection, SqliteDriver } from "../driver.js";
import { InvalidInputError, isOutOfSpace, StoreFullError } from "../errors.js";
import { abortPoint } from "../event-loop.js";
import type { FtsStatus } from "../fts/index.js";
import type { Host } from "../host/host.js";
import { type JournalMode, readJournalMode } from "../journal.js";
import { holdLocally } from "../locks/local-holds.js";
import * as valid from "../model/validate.js";
import { readSync, type StorePolicy } from "../policy/state.js";
import { isInMemoryPath } from "../sqlite-path.js";
import { beginTransaction, rollbackQuietly } from "../transaction.js";
import { type BackupMethod, onlineCopy, vacuumInto } from "./copy.js";
import { checkDestination, folderRefusal, permissionRefusal, publishCopy } from "./destination.js";
import { removeDatabaseFile, temporaryName } from "./files.js";

/** Where a running backup stands. */
export interface BackupProgress {
  /** "copying" while SQLite copies, "finishing" while the copy is checked and synced. */
  phase: "copying" | "finishing";
  /** Pages copied and pages in all, when the method reports them (the online backup does). */
  copiedPages?: number;
  totalPages?: number;
}

export interface BackupOptions {
  /** Called as the copy advances. */
  onProgress?: ((progress: BackupProgress) => void) | null | undefined;
  /** Abort the backup; the temporary file is removed and the destination left as it was. */
  signal?: AbortSignal | null | undefined;
  /** Replace an existing destination file (never the store or one of its companions). */
  overwrite?: boolean | null | undefined;
}

export interface BackupResult {
  /** The destination path. */
  path: string;
  /** How SQLite made the copy. */
  method: BackupMethod;
  /** Size of the copy in bytes. */
  bytes: number;
  /** The copy's journal mode: the store's. */
  journalMode: JournalMode;
  /** The copy's full-text index as a store opened on it would report it, or undefined when it
   * could not be read (then `notes` says why). */
  fts: FtsStatus | undefined;
  /** Why the copy's index is not ready to search, when it is not. */
  notes: string[];
  /** Wall time in milliseconds. */
  durationMs: number;
}

/** `backup`'s options, read once and checked by the input rules (null or undefined: the defaults). */
export function backupOptions(value: unknown): BackupOptions {
  const o = valid.options(value, "backup", ["onProgress", "signal", "overwrite"]);
  const checked: BackupOptions = {};
  const onProgress = valid.callbackOption<BackupOptions["onProgress"]>(o.onProgress, "backup.onProgress");
  const signal = valid.signalOption(o.signal, "backup.signal");
  const overwrite = valid.flagOption(o.overwrite, "backup.overwrite");
  if (onProgress) checked.onProgress = onProgress;
  if (signal) checked.signal = signal;
  if (overwrite !== undefined) checked.overwrite = overwrite;
  return checked;
}

/** Opens the copy the way a user would and reports its index (the Store supplies this). */
/** What a backup reads of the store: its sync context (store/context.ts) fits. */
export interface BackupSource {
  readonly conn: SqliteConnection;
  readonly driver: SqliteDriver;
  readonly path: string;
  readonly host: Host | undefined;
  readonly policy: StorePolicy;
  now(): number;
}

export type InspectCopy = (path: string) => FtsStatus;

function explainFts(fts: FtsStatus): string[] {
  switch (fts.state) {
    case "ready":
      return [];
    case "backfilling":
      return [
        `the store's index was being backfilled (${fts.indexed} of ${fts.total} rows) when the snapshot was taken; the first writable open of the copy resumes it, and search scans meanwhile`,
      ];
    case "stale":
      return [
        `the store's index was detached (${fts.reason}) when the snapshot was taken; the first writable open of the copy rebuilds it, and search scans meanwhile`,
      ];
    case "unavailable":
      return ["this SQLite build has no FTS5, so the copy has no full-text index; search scans"];
  }
}

/** Copy the store behind `ctx` to `destination` (see the module comment). */
export async function backupStore(
  ctx: BackupSource,
  destinationArgument: string,
  options: BackupOptions,
  inspectCopy: InspectCopy,
): Promise<BackupResult> {
  const destination = valid.filePath(destinationArgument, "backup.destination");
  const host = ctx.host;
  if (!host) {
    throw new InvalidInputError(
      "host",
      "store.backup needs the file-system host the adapters pass (createStore(driver, path, { host }))",
    );
  }
  const started = ctx.now();
  checkDestination(ctx.driver, host, ctx.path, destination, options.overwrite === true);
  const journalMode = readSync(ctx.policy, () => readJournalMode(ctx.conn));
  const temporary = temporaryName(destination, host.pid);
  // Created empty and private first, so the transcripts are never readable by others, not even
  // while the copy is being written. An empty file is a valid target for both methods.
  try {
    host.writeFileAtomic(temporary, "");
  } catch (error) {
    throw folderRefusal(destination, error) ?? error;
  }
  try {
    let method: BackupMethod;
    const { driver } = ctx;
    if (driver.backup) {
      method = "online-backup";
      const source = pinnedSnapshot(ctx);
      // On a rollback-journal file the snapshot keeps every writer out until the copy settles,
      // which needs this thread: a write of this thread meanwhile is refused at once.
      const releaseHold =
        journalMode === "wal"
          ? undefined
          : holdLocally(ctx.path, host, "a backup of this file that is still copying it");
      // Opened before the binding opens the copy and closed after it closed it (see holdFile).
      let copy: ReturnType<NonNullable<typeof host.holdFile>> | undefined;
      try {
        copy = host.holdFile?.(temporary);
        const held = copy;
        await onlineCopy({ ...driver, backup: driver.backup }, source, temporary, {
          stepped: journalMode === "wal",
          signal: options.signal ?? undefined,
          flush: held && (() => held.sync()),
          onPages: (pages) =>
            options.onProgress?.({
              phase: "copying",
              copiedPages: pages.totalPages - pages.remainingPages,
              totalPages: pages.totalPages,
            }),
        });
      } finally {
        copy?.close();
        if (source !== ctx.conn) {
          rollbackQuietly(source);
          source.close();
        }
        releaseHold?.();
      }
    } else {
      method = "vacuum-into";
      options.signal?.throwIfAborted();
      options.onProgress?.({ phase: "copying" });
      const flusher = journalMode === "wal" ? await backgroundFlush(host, temporary) : undefined;
      try {
        readSync(ctx.policy, () => vacuumInto(ctx.conn, temporary));
      } finally {
        await flusher?.stop();
      }
    }
    // A copy that held this thread to its end (VACUUM INTO; the online backup in one step on a
    // binding that runs it here) kept the event loop from running: a signal's listener or a
    // timer that aborts meanwhile runs now, before anything is published.
    await abortPoint(options.signal ?? undefined);
    options.onProgress?.({ phase: "finishing" });
    // A page copy of a WAL store says "WAL" in its header; settle the copy as one self-contained
    // file first, inspect it, then give it the store's journal mode.
    withConnection(ctx, temporary, (conn) => conn.exec("PRAGMA journal_mode = DELETE"));
    let fts: FtsStatus | undefined;
    const notes: string[] = [];
    try {
      fts = inspectCopy(temporary);
      notes.push(...explainFts(fts));
    } catch (error) {
      notes.push(`the copy's index could not be read: ${(error as Error).message}`);
    }
    if (journalMode === "wal")
      withConnection(ctx, temporary, (conn) => conn.exec("PRAGMA journal_mode = WAL"));
    options.signal?.throwIfAborted();
    publishCopy(ctx.driver, host, temporary, destination);
    return {
      path: destination,
      method,
      bytes: host.stat(destination)?.size ?? 0,
      journalMode: journalMode === "wal" ? "wal" : "delete",
      fts,
      notes,
      durationMs: ctx.now() - started,
    };
  } catch (error) {
    removeDatabaseFile(host, temporary);
    throw permissionRefusal(destination, error) ?? fullDiskAsStoreFull(error, destination);
  }
}

/** What a full disk or quota reads as from each step of the copy: SQLite's FULL from the binding's
 * backup or a statement on the copy, the read path's StoreFullError (`VACUUM INTO` runs as a store
 * read), the file system's ENOSPC or EDQUOT. The copy writes only beside `destination`, so it is
 * that disk that is full, whatever disk holds the store. */
function fullDiskAsStoreFull(error: unknown, destination: string): unknown {
  const cause = error instanceof StoreFullError ? error.cause : error;
  if (!isOutOfSpace(cause)) return error;
  return new StoreFullError(`the backup to ${JSON.stringify(destination)}`, { cause, written: destination });
}

/** How often the copy is flushed while `VACUUM INTO` writes it: about every 4 MiB at the speed
 * it writes here, like the online backup's steps. */
const VACUUM_FLUSH_EVERY_MS = 10;

/**
 * The `VACUUM INTO` copy is one statement that blocks this thread, so it cannot be flushed step by
 * step like the online backup's (copy.ts): a worker thread flushes it on a timer meanwhile, in WAL
 * mode, where writers go on committing next to the copy. Without that (a host without
 * `flushInBackground`, or a runtime without worker threads) the copy is flushed once, at its end.
 */
async function backgroundFlush(host: Host, path: string): Promise<{ stop(): Promise<number> } | undefined> {
  try {
    return await host.flushInBackground?.(path, VACUUM_FLUSH_EVERY_MS);
  } catch {
    return undefined;
  }
}

/**
 * A second connection to the store holding one read transaction for the whole online copy. The
 * online backup API has no busy wait: a step that finds the store locked (in DELETE mode every
 * commit locks readers out for a moment) fails at once — better-sqlite3 reported that as a
 * finished copy of 0 pages, node:sqlite rejects, Deno's `backup()` spins in the call and blocks
 * the thread. Holding the snapshot, no step can meet a lock, and no other process's commit makes
 * SQLite start the copy over. Taking it waits with the store's read patience (out of patience:
 * STORE_BUSY, nothing written). Like VACUUM INTO, this read keeps a DELETE-mode writer's commit
 * waiting until the copy is done; in WAL mode writers go on. An in-memory store has no second
 * connection: its own is used.
 */
function pinnedSnapshot(ctx: BackupSource): SqliteConnection {
  if (isInMemoryPath(ctx.path)) return ctx.conn;
  const conn = ctx.driver.open(ctx.path, { readOnly: ctx.policy.readOnly });
  try {
    readSync(ctx.policy, () => {
      beginTransaction(conn, "read");
      try {
        conn.prepare("SELECT count(*) FROM sqlite_master").get();
      } catch (error) {
        rollbackQuietly(conn);
        throw error;
      }
    });
    return conn;
  } catch (error) {
    conn.close();
    throw error;
  }
}

/** A short-lived connection to the copy (never to the store). */
function withConnection(ctx: BackupSource, path: string, fn: (conn: SqliteConnection) => void): void {
  const conn = ctx.driver.open(path, { readOnly: false });
  try {
    fn(conn);
  } finally {
    conn.close();
  }
}
