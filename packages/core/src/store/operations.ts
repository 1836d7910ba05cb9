/**
 * The Store as one table: each public method's name → the operation it runs. The sync `Store`
 * (store.ts) runs an entry on its connection and returns the value; the `AsyncStore`
 * (async-store.ts) runs the same entry on its executor and returns a promise. `SyncMethods` and
 * `AsyncMethods` derive the two shapes, so a method added here exists on both with one
 * signature. Every entry validates its arguments before its first statement.
 */
import { BACKFILL_MAX_CHUNK_IDS, DEFAULT_BACKFILL_CHUNK_IDS } from "../constants.js";
import { external, local, type Op, STATE } from "../engine/effects.js";
import { timedBackfillStep } from "../fts/backfill.js";
import { type BackfillProgress, backfillLoop } from "../fts/backfill-loop.js";
import { FTS_MERGE_PAGES } from "../fts/constants.js";
import { type RebuildResult, rebuild, retryRecovery } from "../fts/recovery.js";
import { runSearch } from "../fts/search.js";
import type { SearchOptions, SearchResult } from "../fts/search-options.js";
import { type FtsStatus, ftsStatus } from "../fts/status.js";
import { backfillPending, mergeIndexes, optimizeIndexes, startBackfill } from "../fts/upkeep.js";
import type { MessageInput } from "../model/types.js";
import * as valid from "../model/validate.js";
import { guard, policy, snapshot, write } from "../policy/calls.js";
import { classifyFailure, type StorePolicy } from "../policy/state.js";
import { checkIntegrity } from "./integrity.js";
import * as messages from "./messages.js";
import * as sessions from "./sessions.js";
import { stats } from "./stats.js";
import * as usage from "./usage.js";

/** Append messages with the transcript patience. */
function* appendMessages(sessionId: string, list: MessageInput[]): Op<number[]> {
  const state = (yield STATE) as StorePolicy;
  return yield* messages.appendMessages(sessionId, list, state.patience.appendMs);
}

function* appendMessage(sessionId: string, message: MessageInput): Op<number> {
  const state = (yield STATE) as StorePolicy;
  return (yield* messages.appendMessages(sessionId, [message], state.patience.appendMs))[0] as number;
}

function* search(query: string, options?: SearchOptions | null): Op<SearchResult> {
  yield* guard("open");
  return yield* runSearch(query, options ?? undefined, (yield* policy()).readOnly);
}

function* status(): Op<FtsStatus> {
  yield* guard("open");
  return yield* ftsStatus();
}

/** Options of `rebuildFts`. */
export interface RebuildFtsOptions {
  /** How long to wait for another connection's rebuild (the admission); default 120 s. */
  timeoutMs?: number | null | undefined;
  /** Called after each step of the rebuild, with the rows indexed so far. */
  onProgress?: ((progress: BackfillProgress) => void) | null | undefined;
}

function* rebuildFts(options?: RebuildFtsOptions | null): Op<RebuildResult> {
  const o = valid.options(options, "rebuildFts", ["timeoutMs", "onProgress"]);
  const timeoutMs = valid.durationOption(o.timeoutMs, "rebuildFts.timeoutMs");
  const onProgress = valid.callbackOption<(progress: BackfillProgress) => void>(
    o.onProgress,
    "rebuildFts.onProgress",
  );
  yield* guard("writable", "rebuildFts");
  return yield* rebuild(timeoutMs, onProgress);
}

function* startFtsBackfill(): Op<void> {
  yield* guard("writable", "startFtsBackfill");
  yield* startBackfill();
}

function* ftsBackfillStep(options?: { chunkRows?: number } | null): Op<boolean> {
  const o = valid.options(options, "ftsBackfillStep", ["chunkRows"]);
  const chunkIds = valid.integerOption(o.chunkRows, "ftsBackfillStep.chunkRows", 1, Number.MAX_SAFE_INTEGER);
  yield* guard("writable", "ftsBackfillStep");
  const state = yield* policy();
  return (yield* timedBackfillStep(chunkIds ?? DEFAULT_BACKFILL_CHUNK_IDS, state.steps)).remains;
}

function* optimizeFts(): Op<void> {
  yield* guard("writable", "optimizeFts");
  yield* optimizeIndexes();
}

function* retryDeferredFtsRecovery(): Op<boolean> {
  yield* guard("open", "retryDeferredFtsRecovery");
  const state = yield* policy();
  if (state.readOnly || state.corrupt) return false;
  return yield* retryRecovery();
}

function* maintenanceTick(): Op<void> {
  yield* guard("open", "maintenanceTick");
  const state = yield* policy();
  if (state.readOnly || state.corrupt) return;
  try {
    yield* retryRecovery();
    yield* local({ name: "checkpoint" });
    yield* mergeIndexes(FTS_MERGE_PAGES);
    if (yield* backfillPending()) yield* timedBackfillStep(DEFAULT_BACKFILL_CHUNK_IDS, state.steps);
  } catch (error) {
    throw classifyFailure(
      state,
      error,
      "the maintenance work (deferred FTS recovery, WAL checkpoint, index merge, backfill step)",
    );
  }
}

/** Every method both stores share, by name. */
export const STORE_OPERATIONS = {
  /** Create a session, or fill in what an existing one lacks (stored non-null values are kept). */
  createSession: sessions.createSession,
  /** The session, or undefined. */
  getSession: sessions.getSession,
  /** Sessions, newest first, with message count, last activity and a preview. */
  listSessions: sessions.listSessions,
  /** Change title, archived, pinned or metadata. */
  updateSession: sessions.updateSession,
  /** Mark a session ended (the first end wins), at `at` (epoch seconds; default now). */
  endSession: sessions.endSession,
  /** Delete a session with its messages and usage; children keep living without a parent. */
  deleteSession: sessions.deleteSession,
  /** Append one message; returns its id. */
  appendMessage,
  /** Append messages in one transaction (transcript patience); returns their ids in order. */
  appendMessages,
  /** Change a stored message in place (content, tool calls, original, active flag, …). */
  updateMessage: messages.updateMessage,
  /** Messages of a session in order. */
  getMessages: messages.getMessages,
  /** Number of stored messages, in one session or in the whole store. */
  messageCount: messages.messageCount,
  /** Add token and cost counters for one (model, provider, base URL, billing mode, task). */
  recordUsage: usage.recordUsage,
  /** Usage rows of a session. */
  getUsage: usage.getUsage,
  /** Search messages; the result names the route that served it. */
  search,
  /** State of the full-text index. */
  ftsStatus: status,
  /** What is in the store: sessions, messages by role, tool calls, tokens and cost, and the
   * FTS state, counted in one snapshot. */
  stats,
  /** Full FTS rebuild under the cross-process admission (fail-closed). */
  rebuildFts,
  /** Begin a chunked, resumable backfill of the index. */
  startFtsBackfill,
  /** Index one chunk of the backfill window; true while work remains. */
  ftsBackfillStep,
  /** Merge the FTS b-trees (FTS5 'optimize'). */
  optimizeFts,
  /** Retry a deferred FTS rebuild if due (call from the host's periodic tick); true when rebuilt. */
  retryDeferredFtsRecovery,
  /** Periodic upkeep: deferred FTS recovery, a checkpoint, a bounded merge, one backfill step. */
  maintenanceTick,
  /** `PRAGMA integrity_check`, FTS5 integrity-check on both indexes, docsize = source counts.
   * Reports corruption as problems rather than throwing (a damaged page can make the checks fail). */
  checkIntegrity,
} satisfies Record<string, (...args: never[]) => Op<unknown>>;

export type StoreOperations = typeof STORE_OPERATIONS;

/** The table's methods as a sync store has them: each returns its value. */
export type SyncMethods<O> = {
  [K in keyof O]: O[K] extends (...args: infer A) => Op<infer R> ? (...args: A) => R : never;
};

/** The table's methods as an async store has them: each returns a promise of its value. */
export type AsyncMethods<O> = {
  [K in keyof O]: O[K] extends (...args: infer A) => Op<infer R> ? (...args: A) => Promise<R> : never;
};

/** Install the table's methods on a class: each runs its operation through `run` (with the
 * method's name, for messages). */
export function installOperations<S>(
  prototype: S,
  run: (store: S, op: Op<unknown>, method: string) => unknown,
): void {
  for (const [name, operation] of Object.entries(STORE_OPERATIONS) as Array<
    [string, (...args: unknown[]) => Op<unknown>]
  >) {
    Object.defineProperty(prototype, name, {
      value: function (this: S, ...args: unknown[]) {
        return run(this, operation(...args), name);
      },
      writable: true,
      configurable: true,
    });
  }
}

/** Write body of `store.transaction`: guards, then the caller's function as one write (a read
 * snapshot on a read-only store). */
export function* transactionOp<T>(call: (scope: unknown) => T): Op<Awaited<T>> {
  yield* guard("open");
  if ((yield* policy()).readOnly) return yield* snapshotCall(call);
  return yield* write(() => externalCall(call), { what: "the transaction's writes" });
}

function* externalCall<T>(call: (scope: unknown) => T): Op<Awaited<T>> {
  return yield* external(call);
}

function* snapshotCall<T>(call: (scope: unknown) => T): Op<Awaited<T>> {
  return yield* snapshot(() => externalCall(call));
}

/** Options of `backfillFts`. */
export interface BackfillFtsOptions {
  onProgress?: ((progress: BackfillProgress) => void) | null | undefined;
  signal?: AbortSignal | null | undefined;
  chunkRows?: number | null | undefined;
}

/** `backfillFts` for either store: seed a backfill unless one is pending, then run its paced
 * steps. The sync store runs it with `runSyncYielding`, so it too returns a promise and lets the
 * event loop run between steps. */
export function* backfillFts(options?: BackfillFtsOptions | null): Op<void> {
  const o = valid.options(options, "backfillFts", ["onProgress", "signal", "chunkRows"]);
  const onProgress = valid.callbackOption<(progress: BackfillProgress) => void>(
    o.onProgress,
    "backfillFts.onProgress",
  );
  const signal = valid.signalOption(o.signal, "backfillFts.signal");
  const chunkIds = valid.integerOption(o.chunkRows, "backfillFts.chunkRows", 1, Number.MAX_SAFE_INTEGER);
  yield* guard("writable", "backfillFts");
  const state = yield* policy();
  signal?.throwIfAborted();
  if (!(yield* backfillPending())) yield* startBackfill();
  yield* backfillLoop({
    chunkIds: chunkIds ?? BACKFILL_MAX_CHUNK_IDS,
    memory: state.steps,
    onProgress,
    signal,
  });
}
