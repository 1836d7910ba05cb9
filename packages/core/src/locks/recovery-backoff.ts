/**
 * Rate limit for deferred FTS recovery (spec §6): `retryDeferredFtsRecovery()` runs from the
 * host's own periodic tick, so after a failed or denied attempt the next one waits 60 s, then
 * 120 s, … up to 1 h; a success resets it. Plain state, no timers: the caller passes the time.
 */
import {
  RECOVERY_BACKOFF_BASE_MS,
  RECOVERY_BACKOFF_FLOOR_MS,
  RECOVERY_BACKOFF_MAX_MS,
} from "../constants.js";

export interface RecoveryBackoffOptions {
  /** First interval after a failure; default 60 s. 0 means "retry at the next tick once". */
  baseMs?: number;
  /** Cap on the interval; default 1 h. */
  maxMs?: number;
  /** The doubled interval is never below this (so base 0 cannot stay 0 forever); default 1 s. */
  floorMs?: number;
}

export class RecoveryBackoff {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #floorMs: number;
  #intervalMs: number;
  #nextAttemptAt = 0;

  constructor(options: RecoveryBackoffOptions = {}) {
    this.#maxMs = Math.max(0, options.maxMs ?? RECOVERY_BACKOFF_MAX_MS);
    this.#baseMs = Math.min(this.#maxMs, Math.max(0, options.baseMs ?? RECOVERY_BACKOFF_BASE_MS));
    this.#floorMs = Math.max(0, options.floorMs ?? RECOVERY_BACKOFF_FLOOR_MS);
    this.#intervalMs = this.#baseMs;
  }

  /** May an attempt run at `now`? True before any failure. */
  due(now: number): boolean {
    return now >= this.#nextAttemptAt;
  }

  /** An attempt failed (or was denied) at `now`: wait the current interval, then double it. */
  failed(now: number): void {
    this.#nextAttemptAt = now + this.#intervalMs;
    this.#intervalMs = Math.min(this.#maxMs, Math.max(this.#floorMs, this.#intervalMs * 2));
  }

  /** An attempt succeeded: the next failure starts again from the base interval. */
  succeeded(): void {
    this.#intervalMs = this.#baseMs;
    this.#nextAttemptAt = 0;
  }

  /** Next allowed attempt time (same clock as `now`), or 0 when an attempt may run any time. */
  get nextAttemptAt(): number {
    return this.#nextAttemptAt;
  }
}
