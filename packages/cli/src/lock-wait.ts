/**
 * "Waiting for another process's write": a command that meets a store another process keeps
 * locked waits up to --wait (by default the library's patience, see open.ts) before it gives up
 * with exit 4, and without a word that looks like a hang. After about a second of waiting it says
 * so, once, on stderr, naming the limit of the wait it is in: the open's while the store opens
 * (`openStore` waits with `patience.openMs`), the command's writes' after that.
 *
 * The library waits synchronously (its patience loop sleeps the thread between tries), so no
 * timer of ours could fire meanwhile. What the CLI does see is every try: each one that meets the
 * lock fails in the driver with SQLITE_BUSY (or LOCKED) after SQLite's short busy timeout, before
 * the library sleeps and tries again. The driver the CLI hands the library is the runtime's own
 * with that failure observed: BUSY after BUSY, never more than the longest retry sleep apart, is
 * one wait, and once that wait is a second old the notice is written — straight to the stderr
 * descriptor, as the thread is about to block again.
 */
import * as fs from "node:fs";
import type { StoreOptions } from "@sessiondb/core";
import type { SqliteConnection, SqliteDriver } from "@sessiondb/core/driver";
import { visible } from "./visible.js";

/** How long a command waits for a lock: while it opens the store, and once it is open. */

/** How long a store is waited for when it is locked: the patience budgets of the store's open,
 * writes and appends. */
export type Patience = { [K in keyof NonNullable<StoreOptions["patience"]>]-?: number };

export interface LockBudgets {
  openMs: number;
  /** The wait of the command's reads and writes (`import`'s appends included). */
  writeMs: number;
}

/** The budgets of `command`'s waits, from the patience it opens the store with: `openMs` while
 * opening; then `writeMs`, or `appendMs`, which `import` writes with. */
export function budgetsOf(command: string, patience: Patience): LockBudgets {
  return { openMs: patience.openMs, writeMs: command === "import" ? patience.appendMs : patience.writeMs };
}

/** How long a wait lasts before the notice. */
const NOTICE_AFTER_MS = 1000;
/** Two BUSY failures further apart than this belong to separate waits: the library's longest
 * sleep between tries (1 s) plus SQLite's busy timeout (100 ms), with room for a slow machine. */
const SAME_WAIT_GAP_MS = 1500;

/** What the notice says: set by the command line (the store, and --wait). */
let notice: { shown: string; budgets: LockBudgets } | undefined;
/** Whether the store is being opened (`whileOpening`): which of the budgets a wait is in. */
let opening = false;
let waitStarted: number | undefined;
let lastBusy = Number.NEGATIVE_INFINITY;
let told = false;

/** Say what to print when a wait passes a second: the store's name and the wait budgets. */
export function describeLockWaits(shown: string, budgets: LockBudgets): void {
  notice = { shown, budgets };
}

/** Run `open`, the opening of the store: a lock wait meanwhile is within the open's budget. */
export async function whileOpening<T>(open: () => Promise<T>): Promise<T> {
  opening = true;
  try {
    return await open();
  } finally {
    opening = false;
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** One try met the lock. */
function sawBusy(): void {
  const now = Date.now();
  if (now - lastBusy > SAME_WAIT_GAP_MS) waitStarted = now;
  lastBusy = now;
  if (told || !notice || waitStarted === undefined || now - waitStarted < NOTICE_AFTER_MS) return;
  told = true;
  const { shown, budgets } = notice;
  const budgetMs = opening ? budgets.openMs : budgets.writeMs;
  const text = `sessiondb: waiting for another process's write to ${visible(shown)} to finish (up to ${seconds(budgetMs)}; --wait MS sets how long)\n`;
  try {
    fs.writeSync(2, text);
  } catch {
    // stderr closed: nowhere to say it.
  }
}

function isLockFailure(error: unknown): boolean {
  const code = (error as { resultCode?: unknown } | null)?.resultCode;
  return code === "BUSY" || code === "LOCKED";
}

/** `method` called on `self`, noting a lock failure on the way out. Given the method rather than
 * a closure: statements run many times per command, and a closure per call is garbage. */
function observed<A extends unknown[], R>(self: object, method: (...args: A) => R, args: A): R {
  try {
    return method.apply(self, args);
  } catch (error) {
    if (isLockFailure(error)) sawBusy();
    throw error;
  }
}

/** `driver` with every lock failure of its connections observed; otherwise the same driver. */
export function watchLockWaits(driver: SqliteDriver): SqliteDriver {
  const inner = new WeakMap<SqliteConnection, SqliteConnection>();
  const watched: SqliteDriver = {
    name: driver.name,
    open(path, flags) {
      const connection = observed(driver, driver.open, [path, flags]);
      const wrapped: SqliteConnection = {
        exec: (sql) => observed(connection, connection.exec, [sql]),
        prepare(sql) {
          const statement = observed(connection, connection.prepare, [sql]);
          return {
            run: (...params) => observed(statement, statement.run, params),
            get: (...params) => observed(statement, statement.get, params),
            all: (...params) => observed(statement, statement.all, params),
          };
        },
        close: () => connection.close(),
      };
      inner.set(wrapped, connection);
      return wrapped;
    },
  };
  const backup = driver.backup?.bind(driver);
  if (backup) {
    watched.backup = (connection, destination, options) =>
      backup(inner.get(connection) ?? connection, destination, options);
  }
  return watched;
}
