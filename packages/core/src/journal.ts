/**
 * Journal-mode policy (spec §7): WAL by default, DELETE on a SQLite with the WAL-reset bug, and
 * never a downgrade of a store that is already WAL on disk — other processes' uncheckpointed
 * commits live in its `-wal` file.
 *
 * Two entry points for the Store:
 * - `checkJournalSafety` on every writable open (on the mode the open read). Read-only opens never call it:
 *   a reader cannot trigger the WAL-reset bug's corrupting write or checkpoint, so a vulnerable
 *   runtime may always read a WAL store.
 * - `applyJournalPolicy` only on the slow path, when the store is created or upgraded, outside
 *   any transaction (SQLite refuses a journal-mode change inside one).
 *
 * The SQLite version is passed in rather than read here, so tests and the e2e DELETE arm can pin
 * a vulnerable version and exercise the real policy.
 */
import { SQLITE_JOURNAL_MODES, type SqliteConnection, type SqliteJournalMode } from "./driver.js";
import { get, type Op } from "./engine/effects.js";
import { isContention, UnsafeSqliteError } from "./errors.js";

/** The modes sessiondb's journal policy chooses between. */
export type JournalMode = "wal" | "delete";

export { SQLITE_JOURNAL_MODES, type SqliteJournalMode } from "./driver.js";

/** A journal mode as SQLite reported it (one of SQLITE_JOURNAL_MODES, whatever the case). */
export function journalModeOf(value: unknown): SqliteJournalMode {
  const mode = String(value ?? "").toLowerCase();
  if (!(SQLITE_JOURNAL_MODES as readonly string[]).includes(mode))
    throw new Error(`SQLite reported an unknown journal mode ${JSON.stringify(mode)}`);
  return mode as SqliteJournalMode;
}

export interface JournalPolicyOptions {
  /** Mode for a new or non-WAL store; default "wal". */
  journalMode?: JournalMode | null | undefined;
  /** Allow a WAL-reset-vulnerable SQLite to open a WAL store writable. */
  allowUnsafeWal?: boolean | null | undefined;
  /** Override the detected SQLite version (tests; the e2e DELETE arm pins a vulnerable one). */
  sqliteVersion?: string | null | undefined;
}

type Version = [number, number, number];

/** Parse "3.51.2" (a fourth component such as "3.8.10.2" is accepted and ignored). */
export function parseSqliteVersion(v: string): Version {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:\.\d+)?$/.exec(v.trim());
  if (!match) throw new Error(`Not a SQLite version: ${JSON.stringify(v)} (expected e.g. "3.51.3").`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

function inRange(v: Version, from: Version, below: Version): boolean {
  return compare(v, from) >= 0 && compare(v, below) < 0;
}

/** WAL exists from SQLite 3.7.0 on. */
export function walSupported(version: string): boolean {
  return compare(parseSqliteVersion(version), [3, 7, 0]) >= 0;
}

/**
 * The WAL-reset bug: 3.7.0 – 3.51.2 can corrupt a WAL database written or checkpointed by several
 * connections at once; fixed in 3.51.3 and backported to 3.44.6 and 3.50.7. Below 3.7.0 there is
 * no WAL at all, so nothing is "vulnerable" there (`walSupported` is false instead).
 */
export function isWalResetVulnerable(version: string): boolean {
  const v = parseSqliteVersion(version);
  if (!inRange(v, [3, 7, 0], [3, 51, 3])) return false;
  if (inRange(v, [3, 44, 6], [3, 45, 0])) return false;
  if (inRange(v, [3, 50, 7], [3, 51, 0])) return false;
  return true;
}

function firstValue(row: Record<string, unknown> | undefined): unknown {
  return row === undefined ? undefined : Object.values(row)[0];
}

/**
 * The journal mode as SQLite reports it, lower-cased ("wal", "delete", "memory", …). On an
 * on-disk file this reads the header, so a fresh connection to a WAL store reports "wal"; a
 * concurrent exclusive writer (DELETE mode) can make it throw BUSY.
 */
export function readJournalMode(conn: SqliteConnection): SqliteJournalMode {
  return journalModeOf(firstValue(conn.prepare("PRAGMA journal_mode").get()));
}

/** The journal mode as an operation (what an engine without a local file reports). */
export function* journalMode(): Op<SqliteJournalMode> {
  return journalModeOf(firstValue(yield* get("PRAGMA journal_mode")));
}

/**
 * Writable open, every time: refuse a WAL-reset-vulnerable runtime on an on-disk WAL store with
 * `UnsafeSqliteError` unless `allowUnsafeWal`. `mode` is the store's journal mode as the open
 * read it (in the same statement as its meta rows, so a read that failed, BUSY included, never
 * gets here: the open-time patience retries it). Not called for read-only opens (see the module
 * comment).
 */
export function checkJournalSafety(
  mode: SqliteJournalMode,
  options: JournalPolicyOptions & { sqliteVersion: string },
): void {
  if (mode === "wal" && isWalResetVulnerable(options.sqliteVersion) && !options.allowUnsafeWal) {
    throw new UnsafeSqliteError(
      options.sqliteVersion,
      "this store is in WAL mode, which other processes may be writing at the same time; it was not opened and nothing was changed",
    );
  }
}

/** Rollback-journal modes persisted on disk; switching among them or to WAL is ours to do. */
const ROLLBACK_MODES = new Set<SqliteJournalMode>(["delete", "truncate", "persist"]);

/** What `applyJournalPolicy` did. */
export interface JournalPolicyResult {
  /** The journal mode now, as SQLite reports it. */
  mode: SqliteJournalMode;
  /** The policy wanted a switch, but another connection was using the file: the mode was left
   * alone and the switch is still owed (the caller should try again later). */
  deferred: boolean;
}

/**
 * Decide and maybe switch the journal mode; only on the create/upgrade path, outside any
 * transaction.
 *
 * - A store that is WAL on disk stays WAL, whatever was asked: its `-wal` may hold other
 *   processes' commits. A mode that is not a known rollback mode ("memory" for `:memory:`,
 *   anything unexpected) is left alone too. Errors reading the mode propagate (BUSY included).
 * - On a vulnerable SQLite (or one without WAL) a new or non-WAL store stays in DELETE mode,
 *   `allowUnsafeWal` notwithstanding: that opt-in covers opening existing WAL stores only.
 * - The switch runs with `busy_timeout = 0`: a concurrent opener (a reader in a transaction, a
 *   sibling initializing) makes it fail fast with BUSY/LOCKED, which means the file is not
 *   exclusively ours, so the mode is left as it is and the result says `deferred`.
 *   `busyTimeoutMs` is restored afterwards.
 * - SQLite may answer a switch with a different mode than asked (no WAL on this VFS): the row
 *   the pragma returns is the truth and is what this returns; that is not `deferred`.
 */
export function applyJournalPolicy(
  conn: SqliteConnection,
  options: JournalPolicyOptions & { sqliteVersion: string; busyTimeoutMs: number },
): JournalPolicyResult {
  const current = readJournalMode(conn);
  if (!ROLLBACK_MODES.has(current)) return { mode: current, deferred: false };

  const version = options.sqliteVersion;
  const walAllowed = walSupported(version) && !isWalResetVulnerable(version);
  const target: JournalMode = (options.journalMode ?? "wal") === "wal" && walAllowed ? "wal" : "delete";
  if (current === target) return { mode: current, deferred: false };

  conn.exec("PRAGMA busy_timeout = 0");
  try {
    const row = conn.prepare(`PRAGMA journal_mode = ${target}`).get();
    return { mode: journalModeOf(firstValue(row) ?? current), deferred: false };
  } catch (error) {
    if (!isContention(error)) throw error;
    // Someone else has the file open in a transaction: not exclusively ours. Report what is
    // really there now (a sibling may have switched it meanwhile); if even that read is
    // contended, the mode we saw is still the best answer.
    let mode = current;
    try {
      mode = readJournalMode(conn);
    } catch (readError) {
      if (!isContention(readError)) throw readError;
    }
    return { mode, deferred: mode !== target && ROLLBACK_MODES.has(mode) };
  } finally {
    conn.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
  }
}

/**
 * Copy what the WAL holds into the database without waiting for readers or writers. Never
 * TRUNCATE: a short-lived process truncating under a live writer corrupts large stores. A
 * harmless no-op in rollback modes. BUSY/LOCKED (another checkpoint running, or called inside a
 * transaction) is ignored: the next checkpoint catches up.
 */
export function passiveCheckpoint(conn: SqliteConnection): void {
  try {
    conn.prepare("PRAGMA wal_checkpoint(PASSIVE)").get();
  } catch (error) {
    if (!isContention(error)) throw error;
  }
}
