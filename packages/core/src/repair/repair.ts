/**
 * `repairStore(path)`: bring a damaged store back with the least loss, without ever writing the
 * damaged file. Everything happens on a scratch copy beside it (repair/scratch.ts); the
 * strategies run least destructive first, each followed by the full check (repair/assess.ts);
 * the first that yields a sound store with every row wins, and the row-by-row salvage
 * (repair/salvage.ts) is the last resort. Unless asked only to check, the repaired store then
 * takes the damaged one's name in one rename, under SQLite's EXCLUSIVE lock, and the damaged
 * file is kept beside it as `<db>.corrupt-<timestamp>`.
 */
import { checkDestination, publishCopy, storeFiles } from "../backup/destination.js";
import { publishFile, removeDatabaseFile, temporaryName } from "../backup/files.js";
import { sqliteLogsBeside } from "../backup/sqlite-files.js";
import { STORE_FILE_MODE } from "../constants.js";
import type { SqliteDriver } from "../driver.js";
import { hasResultCode, isOutOfSpace, StoreFullError, StoreInUseError, StoreOpenError } from "../errors.js";
import { abortPoint } from "../event-loop.js";
import { dirnameOf, type Host } from "../host/host.js";
import { lockExclusive } from "../locks/exclusive.js";
import { assess, message } from "./assess.js";
import { addChangedRows, damagedRows, describeDamagedRows } from "./damaged-cells.js";
import { addGarbledRows } from "./garbled-rows.js";
import { salvage } from "./salvage.js";
import { copyForRepair } from "./scratch.js";
import { rebuildIndex, reindex, vacuum } from "./strategies.js";
import type { RepairAttempt, RepairLoss, RepairOptions, RepairReport, TableCounts } from "./types.js";

/** The strategies that keep every row, least destructive first. None runs while a row is named
 * damaged: each would keep it — the FTS rebuild even indexes its garbled text, after which every
 * check passes — so only the salvage, which leaves such rows out, can repair the store. */
const IN_PLACE = [
  { strategy: "fts-rebuild", run: rebuildIndex },
  { strategy: "reindex", run: reindex },
  { strategy: "vacuum", run: vacuum },
] as const;

/** Every row the damaged store could count is still there. */
function countsKept(before: TableCounts, after: TableCounts): boolean {
  return (["sessions", "messages", "usage"] as const).every(
    (table) => before[table] === null || before[table] === after[table],
  );
}

function journalModeOf(driver: SqliteDriver, path: string): "wal" | "delete" {
  try {
    const conn = driver.open(path, { readOnly: true });
    try {
      return String(Object.values(conn.prepare("PRAGMA journal_mode").get() ?? {})[0]) === "wal"
        ? "wal"
        : "delete";
    } finally {
      conn.close();
    }
  } catch {
    return "wal";
  }
}

const NOTHING_RECOVERED = "salvage recovered no row of a store that had rows: the original stays in place";

const rowsIn = (counts: TableCounts) => (counts.sessions ?? 0) + (counts.messages ?? 0) + (counts.usage ?? 0);

/** A salvage that read no row although the damaged file had some (counted before, or tables and
 * rowid ranges it could not read) recovered nothing: an empty store must not replace it. */
function recoveredNothing(before: TableCounts, lost: RepairLoss, after: TableCounts): boolean {
  const hadRows =
    rowsIn(before) > 0 ||
    lost.unreadable.length > 0 ||
    lost.sessions.length > 0 ||
    lost.messageIdRanges.length > 0 ||
    lost.usageRowidRanges.length > 0;
  return rowsIn(after) === 0 && hadRows;
}

/** `20261202T173200Z`: sorts by time and is safe in a file name everywhere. */
function stamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

/**
 * Put `repaired` in place of the store at `path`, keeping the damaged file (and its journal, WAL
 * and shared memory, which belong to it) as `original`. The EXCLUSIVE lock (locks/exclusive.ts)
 * is taken first: a connection opened since the repair began is refused unless `force`, and
 * nobody can begin to use the file while the names change.
 */
function swapIn(
  driver: SqliteDriver,
  host: Host,
  path: string,
  repaired: string,
  original: string,
  force: boolean,
): void {
  const exclusive = lockExclusive(driver, host, path);
  if (!exclusive.held && !force) {
    throw new StoreInUseError(path, exclusive.lock);
  }
  try {
    // The original keeps its name until the repaired file atomically replaces it: no opener
    // ever finds the path missing (it would create an empty store there).
    host.link(path, original);
    host.chmod(original, STORE_FILE_MODE);
    for (const log of sqliteLogsBeside(host, path)) {
      host.rename(log.path, `${original}${log.path.slice(path.length)}`);
    }
    publishFile(host, repaired, path);
  } finally {
    if (exclusive.held) exclusive.release();
  }
}

/**
 * A step that failed for want of room beside the store (the scratch copies live there), as
 * StoreFullError; undefined for any other failure. Out of room: a full disk or quota, or an I/O
 * error where a small file no longer fits (SQLite reports some writes past the end of a full disk
 * so). That is the disk's doing, not the store's: reported as damage, it would send the user to
 * restore a backup.
 */
function outOfRoom(host: Host, path: string, error: unknown): StoreFullError | undefined {
  const cause = error instanceof StoreOpenError ? error.cause : error;
  const full =
    isOutOfSpace(cause) ||
    (hasResultCode(cause, "IOERR") && !host.hasRoom(dirnameOf(path), ROOM_PROBE_BYTES));
  if (!full) return undefined;
  return new StoreFullError("the repair", {
    cause,
    outcome: "could not finish: its scratch copies of the store need room beside it; nothing was changed",
  });
}

/** The bytes a folder must still take for an I/O error there not to be a full disk. */
const ROOM_PROBE_BYTES = 64 * 1024;

/** Repair the store at `path` (see the module comment); resolves to the report. */
export async function repairStore(path: string, options: RepairOptions): Promise<RepairReport> {
  const { driver, host } = options;
  const signal = options.signal ?? undefined;
  const output = options.output ?? undefined;
  const now = options.now ?? Date.now;
  if (output !== undefined) checkDestination(driver, host, path, output, false);
  const scratch = temporaryName(`${path}.repair`, host.pid);
  const fresh = temporaryName(`${path}.salvage`, host.pid);
  // Between two steps (each runs to its end on this thread), `abortPoint` lets a signal's
  // listener that could not run meanwhile run now; an abort leaves by the `finally` below, which
  // removes every copy.
  try {
    // Created empty and private before SQLite copies the store into it: it holds every
    // transcript, and SQLite would create it with the process's default mode (0644 under the
    // usual umask) until the repair made it private. (The salvage's store is made private when
    // it is created.)
    host.writeFileAtomic(scratch, "");
    signal?.throwIfAborted();
    let lockOverridden: string | undefined;
    try {
      lockOverridden = await copyForRepair(driver, host, path, scratch, options.force === true);
    } catch (error) {
      throw outOfRoom(host, path, error) ?? error;
    }
    await abortPoint(signal);
    const journalMode = journalModeOf(driver, scratch);
    const before = assess(driver, host, scratch);
    const attempts: RepairAttempt[] = [];
    let repaired: string | undefined;
    let countsAfter: TableCounts | undefined;
    let lost: RepairLoss | undefined;
    if (before.problems.length === 0) {
      repaired = scratch;
      countsAfter = before.counts;
    }
    // Rows the checks name damaged — in their own cells, in a changed key, in content the FTS
    // indexes contradict — before any strategy can hide them: none may come through as sound.
    const damaged = repaired ? new Map() : damagedRows(driver, host, scratch, before.problems);
    if (!repaired) {
      addChangedRows(driver, scratch, before.problems, damaged);
      addGarbledRows(driver, scratch, damaged);
    }
    for (const { strategy, run } of repaired ? [] : IN_PLACE) {
      await abortPoint(signal);
      if (damaged.size > 0) {
        attempts.push({
          strategy,
          ok: false,
          problems: [
            `not run: it keeps every row, and the checks found rows damaged (${describeDamagedRows(damaged)}): only the salvage leaves them out`,
          ],
        });
        continue;
      }
      try {
        run(driver, host, scratch);
      } catch (error) {
        const full = outOfRoom(host, path, error);
        if (full) throw full;
        attempts.push({ strategy, ok: false, problems: [message(error)] });
        continue;
      }
      const after = assess(driver, host, scratch);
      const ok = after.problems.length === 0 && countsKept(before.counts, after.counts);
      const problems = ok || after.problems.length > 0 ? after.problems : ["rows went missing"];
      attempts.push({ strategy, ok, problems });
      if (ok) {
        repaired = scratch;
        countsAfter = after.counts;
        break;
      }
    }
    if (!repaired) {
      await abortPoint(signal);
      try {
        // The strategies worked on the scratch copy in place — REINDEX rebuilt the indexes from
        // what the damaged table still returned, VACUUM rewrote the file from it — which hides
        // rows the salvage can find (on leaf pages the rewrite dropped) and name (in the indexes
        // as the damage left them). It reads a fresh copy of the damaged store instead.
        if (attempts.length > 0) {
          removeDatabaseFile(host, scratch);
          await copyForRepair(driver, host, path, scratch, options.force === true);
          await abortPoint(signal);
        }
        lost = salvage(driver, host, scratch, fresh, journalMode, damaged);
        const after = assess(driver, host, fresh, damaged);
        const problems = [
          ...after.problems,
          ...(recoveredNothing(before.counts, lost, after.counts) ? [NOTHING_RECOVERED] : []),
        ];
        attempts.push({ strategy: "salvage", ok: problems.length === 0, problems });
        if (problems.length === 0) {
          repaired = fresh;
          countsAfter = after.counts;
        }
      } catch (error) {
        const full = outOfRoom(host, path, error);
        if (full) throw full;
        attempts.push({ strategy: "salvage", ok: false, problems: [message(error)] });
      }
    }
    const needed = before.problems.length > 0;
    const report: RepairReport = {
      path,
      problemsBefore: before.problems,
      strategy: needed ? attempts.find((attempt) => attempt.ok)?.strategy : "none",
      attempts,
      countsBefore: before.counts,
      countsAfter,
      lost,
      lockOverridden,
      outcome: "unchanged",
      original: undefined,
      output: undefined,
    };
    if (!repaired || options.checkOnly) return report;
    // The last moment a stop changes nothing: the swap or the write below is the repair's result.
    await abortPoint(signal);
    if (output !== undefined) {
      publishCopy(driver, host, repaired, output);
      return { ...report, outcome: "written", output };
    }
    if (!needed) return report;
    const original = `${path}.corrupt-${stamp(now())}`;
    swapIn(driver, host, path, repaired, original, options.force === true);
    return { ...report, outcome: "swapped", original };
  } finally {
    for (const file of [...storeFiles(scratch), ...storeFiles(fresh)]) host.remove(file);
    removeDatabaseFile(host, scratch);
  }
}
