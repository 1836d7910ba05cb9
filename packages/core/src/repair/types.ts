/** Public shapes of `repairStore`: its options and the report it returns. */
import type { SqliteDriver } from "../driver.js";
import type { Host } from "../host/host.js";

/** The strategies, least destructive first. "none": the store needed no repair. */
export type RepairStrategy = "none" | "fts-rebuild" | "reindex" | "vacuum" | "salvage";

export interface RepairOptions {
  /** The SQLite driver (the adapters' `repairStore` pass theirs). */
  driver: SqliteDriver;
  /** The file-system host (the adapters pass theirs). */
  host: Host;
  /** Diagnose and try the repair on a scratch copy, but change nothing. */
  checkOnly?: boolean | null | undefined;
  /** Write the repaired store here instead of swapping it in (the damaged store stays as it is). */
  output?: string | null | undefined;
  /** Repair even though another process holds a lock on the store. */
  force?: boolean | null | undefined;
  /** Clock in ms (names the kept original `<db>.corrupt-<timestamp>`). */
  now?: (() => number) | null | undefined;
  /** Stop the repair between its steps (the copy, each strategy, the salvage, the swap): it
   * rejects with the signal's reason, changes nothing and removes its scratch copies. A step
   * already running finishes first. */
  signal?: AbortSignal | null | undefined;
}

/** What an adapter's `repairStore(path, options)` takes: the adapter supplies driver and host. */
export type AdapterRepairOptions = Omit<RepairOptions, "driver" | "host">;

/** Rows per canonical table; null where the table could not be counted. */
export interface TableCounts {
  sessions: number | null;
  messages: number | null;
  usage: number | null;
}

/** One strategy tried, and what the check found after it. */
export interface RepairAttempt {
  strategy: Exclude<RepairStrategy, "none">;
  ok: boolean;
  /** Problems left after the strategy (or the error that stopped it). */
  problems: string[];
}

/** What the row-by-row salvage could not bring back. */
export interface RepairLoss {
  /** Ids of sessions whose row was lost. */
  sessions: string[];
  /** Message ids lost, as inclusive ranges. Exact where an intact index still listed them;
   * otherwise the unreadable id ranges (which may include ids that never existed). */
  messageIdRanges: Array<[number, number]>;
  /** Number of message ids in `messageIdRanges` known to have existed (from an index), or
   * undefined when no index could tell. */
  messagesLost: number | undefined;
  /** Sessions that lost messages, where an index could tell. */
  sessionsWithLostMessages: string[];
  /** Rowid ranges of usage rows that could not be read. */
  usageRowidRanges: Array<[number, number]>;
  /** Sessions re-created as placeholders because their messages or usage survived them. */
  placeholderSessions: string[];
  /** Tables that could not be read at all, with why. */
  unreadable: string[];
}

export interface RepairReport {
  /** The store that was examined. */
  path: string;
  /** Problems the checks found on the scratch copy before any repair. */
  problemsBefore: string[];
  /** The strategy that produced a sound store, "none" when nothing needed repair, or undefined
   * when every strategy failed. */
  strategy: RepairStrategy | undefined;
  /** Every strategy tried, in order. */
  attempts: RepairAttempt[];
  countsBefore: TableCounts;
  /** Counts in the repaired store, when there is one. */
  countsAfter: TableCounts | undefined;
  /** What salvage could not recover; undefined unless salvage ran. */
  lost: RepairLoss | undefined;
  /** A lock another process held that `force` overrode. */
  lockOverridden: string | undefined;
  /** What happened to the files: "swapped" (repaired store in place, original kept as
   * `original`), "written" (to `output`), "unchanged" (check-only, healthy, or failed). */
  outcome: "swapped" | "written" | "unchanged";
  /** Where the damaged original was kept, after a swap. */
  original: string | undefined;
  /** Where the repaired store was written, when it was. */
  output: string | undefined;
}
