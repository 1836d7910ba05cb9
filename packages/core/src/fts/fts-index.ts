/**
 * The full-text index as the Store sees it: install, repair, fail-open, search, rebuild,
 * backfill and upkeep over the Store's context. Every rebuild runs under the cross-process
 * admission lock and fails closed; every failure of the index degrades search to LIKE instead
 * of failing a canonical write.
 */
import { ADMISSION_TIMEOUT_MS, DEFAULT_BACKFILL_CHUNK_IDS } from "../constants.js";
import { acquireAdmission } from "../locks/admission.js";
import { RecoveryBackoff } from "../locks/recovery-backoff.js";
import type { StoreContext } from "../store/context.js";
import { backfillStepTx, countRows, healMarkersTx, startBackfillTx } from "./backfill.js";
import { type BackfillProgress, runBackfill, type TimedStep } from "./backfill-loop.js";
import { FTS_MERGE_PAGES, META_FTS_STALE } from "./constants.js";
import { classifyFtsError, ftsReproducesCorruption } from "./corruption.js";
import { type InstallOutcome, installFts } from "./install.js";
import { ftsIntegrityProblems } from "./integrity.js";
import { BASE_INDEX, commandSql, FTS_INDEXES, rankCommandSql, TRIGRAM_INDEX, triggerNames } from "./projection.js";
import { parseQuery } from "./query.js";
import { chooseRoute } from "./route.js";
import { executeSearch, likeHits } from "./search.js";
import { normalizeSearch, type SearchOptions, type SearchResult } from "./search-options.js";
import {
  backfillMarkersBroken,
  backfillWindow,
  type FtsSnapshot,
  hasIndex,
  isStale,
  presentIndexes,
  readSnapshot,
} from "./state.js";
import { clearIndexMarkers, detachIndex, publishTriggers } from "./triggers.js";

/** State of the full-text index. */
export interface FtsStatus {
  state: "ready" | "backfilling" | "stale" | "unavailable";
  /** The trigram (substring/CJK) index exists. */
  trigram: boolean;
  /** While backfilling: rows the word index holds, and rows it will hold. */
  indexed?: number;
  total?: number;
  /** While stale: why the index was detached. */
  reason?: string;
}

/** Options of the FTS index. */
export interface FtsIndexOptions {
  /** Default wait for the admission lock in `rebuild` (default 120 s). */
  admissionTimeoutMs?: number;
  /** Deferred recovery backoff (defaults 60 s → 1 h, floor 1 s). */
  recovery?: { baseMs?: number; maxMs?: number; floorMs?: number };
}

const text = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class FtsIndex {
  readonly #ctx: StoreContext;
  readonly #admissionTimeoutMs: number;
  readonly #backoff: RecoveryBackoff;
  #inFailOpen = false;

  constructor(ctx: StoreContext, options: FtsIndexOptions = {}) {
    this.#ctx = ctx;
    this.#admissionTimeoutMs = options.admissionTimeoutMs ?? ADMISSION_TIMEOUT_MS;
    this.#backoff = new RecoveryBackoff(options.recovery);
  }

  #snapshot(): FtsSnapshot {
    return readSnapshot((sql) => this.#ctx.statement(sql));
  }

  /** Slow path, inside the Store's init transaction: views and FTS5 tables, never triggers or a rebuild. */
  install(): InstallOutcome {
    return installFts(this.#ctx);
  }

  /** After init, on writable opens: heal broken backfill markers; repair a stale or trigger-less index under a non-blocking admission, else detach and defer. Never throws. */
  repairAtOpen(): void {
    if (this.#ctx.readOnly) return;
    try {
      let snap = this.#ctx.read(() => this.#snapshot());
      if (presentIndexes(snap).length === 0) return;
      if (backfillMarkersBroken(snap.meta)) {
        this.#ctx.write(() => healMarkersTx(this.#ctx));
        snap = this.#ctx.read(() => this.#snapshot());
      }
      if (isStale(snap)) this.#repair();
    } catch {
      // Whatever failed changed nothing: a stale index stays stale and search stays on LIKE.
    }
  }

  /** Rebuild under a non-blocking admission; denied or failed → detach and defer. */
  #repair(): boolean {
    const admission = acquireAdmission(this.#ctx.driver, this.#ctx.path, { timeoutMs: 0, host: this.#ctx.host });
    if (!admission.admitted) {
      this.#backoff.failed(this.#ctx.now());
      this.#defer(admission.message);
      return false;
    }
    try {
      this.#ctx.write(() => this.#rebuildTx());
      this.#backoff.succeeded();
      return true;
    } catch (error) {
      this.#backoff.failed(this.#ctx.now());
      this.#defer(`the FTS rebuild failed: ${text(error)}`);
      return false;
    } finally {
      admission.release();
    }
  }

  /** Detach (breadcrumb + no triggers) unless someone repaired it meanwhile or it already is. */
  #defer(reason: string): void {
    this.#ctx.write(() => {
      const snap = this.#snapshot();
      const anyTrigger = FTS_INDEXES.some((def) => triggerNames(def).some((n) => snap.objects.has(n)));
      if (!isStale(snap) || (snap.meta.has(META_FTS_STALE) && !anyTrigger)) return;
      detachIndex(this.#ctx, reason);
    });
  }

  /** Inside a write: publish triggers, FTS5 'rebuild' of each index, clear markers and breadcrumb. */
  #rebuildTx(): void {
    const defs = presentIndexes(this.#snapshot());
    publishTriggers(this.#ctx, defs);
    for (const def of defs) this.#ctx.conn.exec(commandSql(def, "rebuild"));
    clearIndexMarkers(this.#ctx);
  }

  /** FTS-scoped corruption → detach in one transaction and return true (the caller retries its write once); else false. Call after the failed write rolled back. Never rebuilds. */
  failOpen(error: unknown): boolean {
    if (this.#inFailOpen || this.#ctx.readOnly) return false;
    this.#inFailOpen = true;
    try {
      const defs = presentIndexes(this.#ctx.read(() => this.#snapshot()));
      const kind = classifyFtsError(error);
      if (defs.length === 0 || kind === "other") return false;
      if (kind === "ambiguous" && !ftsReproducesCorruption(this.#ctx, defs)) return false;
      this.#ctx.write(() => detachIndex(this.#ctx, `FTS corruption on a write: ${text(error)}`));
      return true;
    } catch {
      return false;
    } finally {
      this.#inFailOpen = false;
    }
  }

  /** Search messages; the result names the route that served it. */
  search(query: string, options?: SearchOptions): SearchResult {
    const search = normalizeSearch(query, options);
    const parsed = parseQuery(query);
    const ctx = this.#ctx;
    const { snap, plan } = ctx.read(() => {
      const s = this.#snapshot();
      const trusted = !isStale(s);
      const input = { query: parsed, roles: search.filters.roles, substring: search.substring, backfill: backfillWindow(s.meta) };
      return { snap: s, plan: chooseRoute({ ...input, baseUsable: trusted && hasIndex(s, BASE_INDEX), trigramUsable: trusted && hasIndex(s, TRIGRAM_INDEX) }) };
    });
    try {
      return { route: plan.route, hits: ctx.read(() => executeSearch(ctx, plan, parsed, search)) };
    } catch (error) {
      if (plan.index === undefined || classifyFtsError(error) === "other") throw error;
      // The index failed with corruption. If the canonical rows answer, the corruption was the
      // index's: answer by LIKE (this throws on structural corruption) and detach the index.
      const hits = ctx.read(() => likeHits(ctx, parsed, search, search.page));
      if (!ctx.readOnly && presentIndexes(snap).length > 0) {
        try {
          ctx.write(() => detachIndex(ctx, `FTS corruption on a search: ${text(error)}`));
        } catch {
          // Read-only file or busy: the next search meets the same error and answers by LIKE again.
        }
      }
      return { route: "like", hits };
    }
  }

  /** State of the full-text index. */
  status(): FtsStatus {
    return this.#ctx.read(() => {
      const snap = this.#snapshot();
      if (!hasIndex(snap, BASE_INDEX)) return { state: "unavailable", trigram: false };
      const trigram = hasIndex(snap, TRIGRAM_INDEX);
      if (isStale(snap)) {
        const crumb = snap.meta.get(META_FTS_STALE);
        let reason = "FTS triggers are missing (repair pending)";
        try {
          if (crumb) reason = String(JSON.parse(crumb).reason);
        } catch {
          reason = crumb ?? reason;
        }
        return { state: "stale", trigram, reason };
      }
      const window = backfillWindow(snap.meta);
      if (!window) return { state: "ready", trigram };
      const row = this.#ctx
        .statement("SELECT count(*) AS total, coalesce(sum(id <= ? OR id > ?), 0) AS indexed FROM messages")
        .get(window.progress, window.highWater);
      return { state: "backfilling", trigram, indexed: Number(row?.indexed ?? 0), total: Number(row?.total ?? 0) };
    });
  }

  /** Full rebuild of both indexes under the admission lock (fail-closed); clears markers and breadcrumb. */
  rebuild(options: { timeoutMs?: number } = {}): { rebuilt: boolean; reason?: string } {
    if (this.#ctx.readOnly) return { rebuilt: false, reason: "the store is read-only" };
    if (presentIndexes(this.#ctx.read(() => this.#snapshot())).length === 0) {
      return { rebuilt: false, reason: "FTS5 is not available in this SQLite build; search uses LIKE" };
    }
    const timeoutMs = options.timeoutMs ?? this.#admissionTimeoutMs;
    const admission = acquireAdmission(this.#ctx.driver, this.#ctx.path, { timeoutMs, host: this.#ctx.host });
    if (!admission.admitted) return { rebuilt: false, reason: admission.message };
    try {
      this.#ctx.write(() => this.#rebuildTx());
      this.#backoff.succeeded();
      return { rebuilt: true };
    } finally {
      admission.release();
    }
  }

  /** Seed a chunked backfill (no-op while a healthy one runs, or without FTS5). */
  startBackfill(): void {
    if (!this.#ctx.readOnly) this.#ctx.write(() => startBackfillTx(this.#ctx));
  }

  /** True while a backfill is pending (cheap: one small read). */
  backfillPending(): boolean {
    return this.#ctx.read(() => backfillWindow(this.#snapshot().meta) !== undefined);
  }

  #timedStep(chunkIds: number): TimedStep {
    const started = this.#ctx.now();
    let entered = started;
    const outcome = this.#ctx.write(() => {
      entered = this.#ctx.now();
      return backfillStepTx(this.#ctx, chunkIds);
    });
    return { ...outcome, waitedMs: entered - started, heldMs: this.#ctx.now() - entered };
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
    await runBackfill(
      { step: (chunk) => this.#timedStep(chunk), countRows: (a, b) => this.#ctx.read(() => countRows(this.#ctx, a, b)) },
      { ...options, chunkIds: options.chunkIds ?? DEFAULT_BACKFILL_CHUNK_IDS },
    );
  }

  /** FTS5 'optimize' on both indexes (skipped while stale). */
  optimize(): void {
    this.#upkeep((def) => this.#ctx.conn.exec(commandSql(def, "optimize")));
  }

  /** A bounded FTS5 'merge' of about `pages` pages per index (for maintenanceTick). */
  merge(pages: number = FTS_MERGE_PAGES): void {
    this.#upkeep((def) => this.#ctx.statement(rankCommandSql(def, "merge")).run(Math.max(1, Math.floor(pages))));
  }

  #upkeep(run: (def: (typeof FTS_INDEXES)[number]) => void): void {
    if (this.#ctx.readOnly) return;
    this.#ctx.write(() => {
      // Re-checked inside the transaction: a fail-open retry of this callback finds it stale.
      const snap = this.#snapshot();
      if (!isStale(snap)) for (const def of presentIndexes(snap)) run(def);
    });
  }

  /** Spec §6: no-op unless stale and writable; non-blocking admission; backoff; true when it rebuilt. */
  retryDeferredRecovery(): boolean {
    if (this.#ctx.readOnly) return false;
    const snap = this.#ctx.read(() => this.#snapshot());
    if (presentIndexes(snap).length === 0 || !isStale(snap)) return false;
    if (!this.#backoff.due(this.#ctx.now())) return false;
    return this.#repair();
  }

  /** FTS5 integrity-check (rank 1) on both indexes and docsize = source view count for each. */
  integrityProblems(): string[] {
    return this.#ctx.read(() => ftsIntegrityProblems(this.#ctx, this.#snapshot()));
  }
}
