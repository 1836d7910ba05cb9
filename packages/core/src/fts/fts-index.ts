/**
 * The full-text index as the Store sees it: a facade over install, repair and recovery,
 * fail-open, search, backfill and upkeep, all over the Store's context. Every rebuild runs
 * under the cross-process admission lock and fails closed; every failure of the index degrades
 * search to LIKE instead of failing a canonical write.
 */
import { DEFAULT_BACKFILL_CHUNK_IDS } from "../constants.js";
import { runSync } from "../engine/run-sync.js";
import type { StoreContext } from "../store/context.js";
import type { IntegrityProblem } from "../store/types.js";
import { backfillStepTx, countRows, startBackfillTx } from "./backfill.js";
import { type BackfillProgress, runBackfill, type TimedStep } from "./backfill-loop.js";
import { FTS_MERGE_PAGES } from "./constants.js";
import { failOpen } from "./corruption.js";
import { type InstallOutcome, installFts } from "./install.js";
import { ftsIntegrityProblems } from "./integrity.js";
import { commandSql, type FtsIndexDef, rankCommandSql } from "./projection.js";
import { FtsRecovery, type RebuildResult } from "./recovery.js";
import { runSearch } from "./search.js";
import type { SearchOptions, SearchResult } from "./search-options.js";
import { backfillWindow, type FtsSnapshot, isStale, presentIndexes, readSnapshot } from "./state.js";
import { type FtsStatus, readFtsStatus } from "./status.js";

/** Options of the FTS index. */
export interface FtsIndexOptions {
  /** Default wait for the admission lock in `rebuild` (default 120 s). */
  admissionTimeoutMs?: number;
  /** Deferred recovery backoff (defaults 60 s → 1 h, floor 1 s). */
  recovery?: { baseMs?: number; maxMs?: number; floorMs?: number };
}

export class FtsIndex {
  readonly #ctx: StoreContext;
  readonly #recovery: FtsRecovery;
  #inFailOpen = false;
  #dataVersion: number | undefined;

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
    if (!this.#ctx.readOnly) this.#ctx.write(() => startBackfillTx(this.#ctx));
  }

  /** True while a backfill is pending (one small read; for maintenanceTick). */
  backfillPending(): boolean {
    return this.#ctx.read(() => backfillWindow(this.#snapshot().meta) !== undefined);
  }

  /** One step, timed: how long BEGIN IMMEDIATE waited for the lock, and how long we held it. */
  #timedStep(chunkIds: number): TimedStep {
    const started = this.#ctx.now();
    let entered = started;
    let othersWrote = false;
    const outcome = this.#ctx.write(() => {
      entered = this.#ctx.now();
      // data_version moves only for other connections' commits: did anyone write since our last step?
      const version = Number(Object.values(this.#ctx.statement("PRAGMA data_version").get() ?? {})[0]);
      othersWrote = this.#dataVersion !== undefined && version !== this.#dataVersion;
      this.#dataVersion = version;
      return backfillStepTx(this.#ctx, chunkIds);
    });
    return { ...outcome, waitedMs: entered - started, heldMs: this.#ctx.now() - entered, othersWrote };
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
      countRows: (after: number, upTo: number) => this.#ctx.read(() => countRows(this.#ctx, after, upTo)),
    };
    await runBackfill(driver, { ...options, chunkIds: options.chunkIds ?? DEFAULT_BACKFILL_CHUNK_IDS });
  }

  /** FTS5 'optimize' on both indexes (skipped while stale). */
  optimize(): void {
    this.#upkeep((def) => this.#ctx.conn.exec(commandSql(def, "optimize")));
  }

  /** A bounded FTS5 'merge' of about `pages` pages per index (for maintenanceTick; skipped while stale). */
  merge(pages: number = FTS_MERGE_PAGES): void {
    this.#upkeep((def) =>
      this.#ctx.statement(rankCommandSql(def, "merge")).run(Math.max(1, Math.floor(pages))),
    );
  }

  #upkeep(run: (def: FtsIndexDef) => void): void {
    if (this.#ctx.readOnly) return;
    this.#ctx.write(() => {
      // Re-checked inside the transaction: a fail-open retry of this callback finds it stale.
      const snap = this.#snapshot();
      if (!isStale(snap)) for (const def of presentIndexes(snap)) run(def);
    });
  }

  /** FTS5 integrity-check (rank 1) on both indexes and docsize = source view count for each. */
  integrityProblems(): IntegrityProblem[] {
    return this.#ctx.read(() => ftsIntegrityProblems(this.#ctx, this.#snapshot()));
  }
}
