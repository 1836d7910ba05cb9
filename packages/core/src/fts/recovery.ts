/**
 * Full rebuilds and their scheduling (spec §5 repair at open, §6 admission and deferred
 * recovery). A rebuild runs only under the cross-process admission lock and fails closed: when
 * the lock cannot be had, the index is detached (stale breadcrumb, no triggers, LIKE search) and
 * the rebuild is left to `retry()`, rate-limited by the recovery backoff.
 */
import { ADMISSION_TIMEOUT_MS } from "../constants.js";
import { write } from "../engine/effects.js";
import { runSync } from "../engine/run-sync.js";
import { StoreFullError } from "../errors.js";
import { acquireAdmission } from "../locks/admission.js";
import { RecoveryBackoff, type RecoveryBackoffOptions } from "../locks/recovery-backoff.js";
import type { StoreContext } from "../store/context.js";
import { healMarkersTx } from "./backfill.js";
import { commandSql, FTS_INDEXES, triggerNames } from "./projection.js";
import { backfillMarkersBroken, isStale, presentIndexes, readSnapshot } from "./state.js";
import { readFtsStatus } from "./status.js";
import { clearIndexMarkers, detachIndex, publishTriggers } from "./triggers.js";

/** What a rebuild that cannot be stored did not store. */
const REBUILD = "the FTS rebuild";

const text = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Outcome of a full rebuild (`store.rebuildFts`). */
export interface RebuildResult {
  rebuilt: boolean;
  /** Why not, in words (names the lock holder or the real SQLite code). */
  reason?: string;
  /** Why not, for programs: another process holds the admission lock ("held"), the lock file
   * cannot be used at all ("environment"), the store is read-only, or SQLite has no FTS5. */
  blocked?: "held" | "environment" | "read-only" | "no-fts5";
}

/** Rebuild, repair and deferred recovery of the FTS indexes over one Store context. */
export class FtsRecovery {
  readonly #ctx: StoreContext;
  readonly #admissionTimeoutMs: number;
  readonly #backoff: RecoveryBackoff;

  constructor(
    ctx: StoreContext,
    options: { admissionTimeoutMs?: number; recovery?: RecoveryBackoffOptions } = {},
  ) {
    this.#ctx = ctx;
    this.#admissionTimeoutMs = options.admissionTimeoutMs ?? ADMISSION_TIMEOUT_MS;
    this.#backoff = new RecoveryBackoff(options.recovery);
  }

  #snapshot() {
    return readSnapshot((sql) => this.#ctx.statement(sql));
  }

  /** On writable opens: heal broken backfill markers; repair a stale or trigger-less index under a non-blocking admission, else detach and defer. Never throws. */
  repairAtOpen(): void {
    if (this.#ctx.readOnly) return;
    try {
      let snap = this.#ctx.read(() => this.#snapshot());
      if (presentIndexes(snap).length === 0) return;
      if (backfillMarkersBroken(snap.meta)) {
        runSync(this.#ctx, write(healMarkersTx));
        snap = this.#ctx.read(() => this.#snapshot());
      }
      if (isStale(snap)) this.#repair();
    } catch {
      // Whatever failed changed nothing: a stale index stays stale and search stays on LIKE.
    }
  }

  /** Explicit rebuild: waits up to `timeoutMs` for admission; not admitted → not rebuilt, with the reason. */
  rebuild(timeoutMs: number = this.#admissionTimeoutMs): RebuildResult {
    if (this.#ctx.readOnly) return { rebuilt: false, reason: "the store is read-only", blocked: "read-only" };
    if (presentIndexes(this.#ctx.read(() => this.#snapshot())).length === 0) {
      return {
        rebuilt: false,
        reason: "FTS5 is not available in this SQLite build; search uses LIKE",
        blocked: "no-fts5",
      };
    }
    const admission = acquireAdmission(this.#ctx.driver, this.#ctx.path, { timeoutMs, host: this.#ctx.host });
    if (!admission.admitted) {
      // The lock file sits beside the store, on its disk: a full one fails like the writes do.
      if (admission.code === "FULL")
        throw new StoreFullError(REBUILD, { cause: new Error(admission.message) });
      return { rebuilt: false, reason: admission.message, blocked: admission.reason };
    }
    try {
      this.#ctx.write(() => this.#rebuildTx(), { what: REBUILD });
      this.#backoff.succeeded();
      return { rebuilt: true };
    } finally {
      admission.release();
    }
  }

  /** Deferred recovery: no-op unless stale, writable and due; non-blocking admission; true when it rebuilt. */
  retry(): boolean {
    if (this.#ctx.readOnly) return false;
    const snap = this.#ctx.read(() => this.#snapshot());
    if (presentIndexes(snap).length === 0 || !isStale(snap)) return false;
    if (!this.#backoff.due(this.#ctx.now())) return false;
    return this.#repair();
  }

  /** Rebuild under a non-blocking admission; denied or failed → detach, defer, back off. */
  #repair(): boolean {
    const admission = acquireAdmission(this.#ctx.driver, this.#ctx.path, {
      timeoutMs: 0,
      host: this.#ctx.host,
    });
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

  /**
   * Detach, re-checked inside the transaction: a sibling may have finished a repair since we
   * looked (then there is nothing to do), or the index may already be detached for the same
   * reason (then rewriting the breadcrumb on every retry would be a pointless write).
   */
  #defer(reason: string): void {
    this.#ctx.write(() => {
      const snap = this.#snapshot();
      if (!isStale(snap)) return;
      const anyTrigger = FTS_INDEXES.some((def) => triggerNames(def).some((n) => snap.objects.has(n)));
      const status = readFtsStatus(this.#ctx);
      if (!anyTrigger && status.state === "stale" && status.reason === reason) return;
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
}
