/**
 * The full-text index as the Store sees it: a facade over install, repair and recovery,
 * fail-open, search, backfill and upkeep, all over the Store's context. Every rebuild runs
 * under the cross-process admission lock and fails closed; every failure of the index degrades
 * search to LIKE instead of failing a canonical write.
 */
import { DEFAULT_BACKFILL_CHUNK_IDS } from "../constants.js";
import { exec, type Op, read, run, write } from "../engine/effects.js";
import { runSync } from "../engine/run-sync.js";
import type { StoreContext } from "../store/context.js";
import type { IntegrityProblem } from "../store/types.js";
import { countRows, type StepMemory, startBackfillTx, timedBackfillStep } from "./backfill.js";
import { type BackfillProgress, runBackfill, type TimedStep } from "./backfill-loop.js";
import { FTS_MERGE_PAGES } from "./constants.js";
import { failOpen } from "./corruption.js";
import { type InstallOutcome, installFts } from "./install.js";
import { ftsIntegrityProblems } from "./integrity.js";
import { commandSql, type FtsIndexDef, rankCommandSql } from "./projection.js";
import { FtsRecovery, type RebuildResult } from "./recovery.js";
import { runSearch } from "./search.js";
import type { SearchOptions, SearchResult } from "./search-options.js";
import {
  backfillWindow,
  type FtsSnapshot,
  isStale,
  loadSnapshot,
  presentIndexes,
  readSnapshot,
} from "./state.js";
import { type FtsStatus, readFtsStatus } from "./status.js";

/** Options of the FTS index. */
export interface FtsIndexOptions {
  /** Default wait for the admission lock in `rebuild` (default 120 s). */
  admissionTimeoutMs?: number;
  /** Deferred recovery backoff (defaults 60 s → 1 h, floor 1 s). */
  recovery?: { baseMs?: number; maxMs?: number; floorMs?: number };
}

/** True while a backfill is pending. */
function* backfillPendingOp(): Op<boolean> {
  return backfillWindow((yield* loadSnapshot()).meta) !== undefined;
}

/** The indexes upkeep may touch: none while stale (re-checked inside the transaction, so a
 * fail-open retry of the body finds it stale). */
function* upkeepIndexes(): Op<readonly FtsIndexDef[]> {
  const snap = yield* loadSnapshot();
  return isStale(snap) ? [] : presentIndexes(snap);
}

/** FTS5 'optimize' on both indexes. */
function* optimizeIndexes(): Op<void> {
  for (const def of yield* upkeepIndexes()) yield* exec(commandSql(def, "optimize"));
}

/** A bounded FTS5 'merge' of about `pages` pages per index. */
function* mergeIndexes(pages: number): Op<void> {
  for (const def of yield* upkeepIndexes())
    yield* run(rankCommandSql(def, "merge"), Math.max(1, Math.floor(pages)));
}

export class FtsIndex {
  readonly #ctx: StoreContext;
  readonly #recovery: FtsRecovery;
  #inFailOpen = false;
  readonly #steps: StepMemory = {};

  constructor(ctx: StoreContext, options: FtsIndexOptions = {}) {
    this.#ctx = ctx;
    this.#recovery = new FtsRecovery(ctx, options);
  }

  #snapshot(): FtsSnapshot {
    return readSnapshot((sql) => this.#ctx.statement(sql));
  }

  /** Slow path, inside the Store's init transaction: views and FTS5 tables (trigram soft-fails and is recorded); never triggers or a rebuild. */
  install(): InstallOutcome {
    return installFts(this.#ctx);
  }

  /** After init, outside any transaction, on writable opens: heal backfill markers; repair a stale or trigger-less index under a non-blocking admission, else detach and defer. Never throws. */
  repairAtOpen(): void {
    this.#recovery.repairAtOpen();
  }

  /** FTS-scoped corruption → detach in one transaction and return true (retry the canonical write once); else false. Call after the failed write rolled back. Never rebuilds. */
  failOpen(error: unknown): boolean {
    // The detach is itself a ctx.write, whose failure handler calls failOpen again: refuse re-entry.
    if (this.#inFailOpen) return false;
    this.#inFailOpen = true;
    try {
      return failOpen(this.#ctx, error);
    } finally {
      this.#inFailOpen = false;
    }
  }

  /** Search messages; the result names the route that served it. */
  search(query: string, options?: SearchOptions): SearchResult {
    return runSync(this.#ctx, runSearch(query, options, this.#ctx.readOnly));
  }

  /** State of the full-text index. */
  status(): FtsStatus {
    return this.#ctx.snapshot(() => readFtsStatus(this.#ctx));
  }

  /** Full rebuild of both indexes under the admission lock (fail-closed); clears markers and breadcrumb. */
  rebuild(options: { timeoutMs?: number } = {}): RebuildResult {
    return this.#recovery.rebuild(options.timeoutMs);
  }

  /** Spec §6: no-op unless stale and writable; non-blocking admission; backoff; true when it rebuilt. */
  retryDeferredRecovery(): boolean {
    return this.#recovery.retry();
  }

  /** Seed a chunked backfill (no-op while a healthy one runs, or without FTS5). */
  startBackfill(): void {
    if (!this.#ctx.readOnly) runSync(this.#ctx, write(startBackfillTx));
  }

  /** True while a backfill is pending (one small read; for maintenanceTick). */
  backfillPending(): boolean {
    return runSync(this.#ctx, read(backfillPendingOp));
  }

  #timedStep(chunkIds: number): TimedStep {
    return runSync(this.#ctx, timedBackfillStep(chunkIds, this.#steps));
  }

  /** One backfill step in one write transaction; true while work remains. */
  backfillStep(options: { chunkIds?: number } = {}): boolean {
    if (this.#ctx.readOnly) return false;
    return this.#timedStep(options.chunkIds ?? DEFAULT_BACKFILL_CHUNK_IDS).remains;
  }

  /** Run a backfill to completion (starting one if none is pending), yielding between chunks. */
  async backfill(
    options: { onProgress?: (p: BackfillProgress) => void; signal?: AbortSignal; chunkIds?: number } = {},
  ): Promise<void> {
    if (this.#ctx.readOnly) return;
    options.signal?.throwIfAborted();
    if (!this.backfillPending()) this.startBackfill();
    const driver = {
      step: (chunk: number) => this.#timedStep(chunk),
      countRows: (after: number, upTo: number) =>
        runSync(
          this.#ctx,
          read(() => countRows(after, upTo)),
        ),
    };
    await runBackfill(driver, { ...options, chunkIds: options.chunkIds ?? DEFAULT_BACKFILL_CHUNK_IDS });
  }

  /** FTS5 'optimize' on both indexes (skipped while stale). */
  optimize(): void {
    if (!this.#ctx.readOnly) runSync(this.#ctx, write(optimizeIndexes));
  }

  /** A bounded FTS5 'merge' of about `pages` pages per index (for maintenanceTick; skipped while stale). */
  merge(pages: number = FTS_MERGE_PAGES): void {
    if (!this.#ctx.readOnly)
      runSync(
        this.#ctx,
        write(() => mergeIndexes(pages)),
      );
  }

  /** FTS5 integrity-check (rank 1) on both indexes and docsize = source view count for each. */
  integrityProblems(): IntegrityProblem[] {
    return this.#ctx.read(() => ftsIntegrityProblems(this.#ctx, this.#snapshot()));
  }
}
