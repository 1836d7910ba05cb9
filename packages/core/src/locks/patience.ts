/**
 * Time-based lock patience (spec §6, write path and open-time init): retry a whole attempt on
 * BUSY/LOCKED with jittered sleeps until a budget runs out, never sleeping past the deadline.
 * Core is synchronous, so the sleep blocks the thread — exactly what SQLite's own busy handler
 * does, but with jitter, so several waiting processes do not retry in lockstep.
 */
import {
  MAX_WAIT_MS,
  OPEN_JITTER_MS,
  WRITE_JITTER_EARLY_MS,
  WRITE_JITTER_EARLY_WINDOW_MS,
  WRITE_JITTER_LATE_MS,
} from "../constants.js";
import { sleepAsync, sleepSync } from "../engine/sleep.js";
import { hasResultCode, isContention, StoreBusyError } from "../errors.js";

export interface PatienceOptions {
  /** Total time to keep retrying, in ms, measured from the first attempt. */
  budgetMs: number;
  /** write: 20–150 ms for the first 2 s, then 250–1000 ms; open: 250–1000 ms. */
  jitter: "write" | "open";
  /** Extra text for StoreBusyError, e.g. who holds the admission lock; given the last error. */
  describeHolder?: (lastError: unknown) => string | undefined;
  /** Asked when a lock is met: what of this thread holds it (locks/local-holds.ts), which no
   * wait can outlast, so the loop gives up at once saying so. */
  heldHere?: () => string | undefined;
  /** Other failures that mean "wait for another process" (besides BUSY/LOCKED). */
  retryable?: (error: unknown) => boolean;
  /** Uniform [0, 1) source (tests inject a fixed one). */
  random?: () => number;
  /** Clock in ms (tests inject a fake one). */
  now?: () => number;
  /** Blocking sleep (tests inject one that advances the fake clock). */
  sleep?: (ms: number) => void;
}

/** The sleep band for a retry `elapsedMs` after the first attempt. */
export function jitterBand(jitter: PatienceOptions["jitter"], elapsedMs: number): readonly [number, number] {
  if (jitter === "open") return OPEN_JITTER_MS;
  return elapsedMs < WRITE_JITTER_EARLY_WINDOW_MS ? WRITE_JITTER_EARLY_MS : WRITE_JITTER_LATE_MS;
}

function describe(options: Omit<PatienceOptions, "sleep">, lastError: Error): string {
  // A message that ends its own sentence gets no second full stop.
  const parts = [`Last lock error: ${lastError.message.replace(/\.$/, "")}.`];
  if (hasResultCode(lastError, "READONLY") && isContention(lastError)) {
    // isContention's READONLY_RECOVERY / CANTINIT: this process cannot write the -shm. (Another
    // READONLY waited for, a hot rollback journal's, has its cause from the holder text.)
    parts.push(
      "This process cannot write the store's -shm file, and the WAL index in it was being rebuilt the whole time; if no writer has the store open (a stale -shm on a read-only file system), open it once as a user who can write it.",
    );
  }
  try {
    const holder = options.describeHolder?.(lastError);
    if (holder) parts.push(holder);
  } catch {
    // Diagnostics only: a failing description must not replace the real error.
  }
  return parts.join(" ");
}

/** The budget as a wait that ends: the Store validates budgets, but a NaN reaching this loop
 * would make the deadline NaN — never reached — and every sleep NaN (no sleep at all): a hot
 * spin for ever. NaN or a negative budget waits not at all; anything above MAX_WAIT_MS,
 * Infinity included, waits MAX_WAIT_MS. */
function budget(ms: number): number {
  return ms > 0 ? Math.min(ms, MAX_WAIT_MS) : 0;
}

/**
 * Call `attempt()`; on BUSY/LOCKED sleep a jittered interval (never past the deadline) and call
 * it again. When the budget is spent, throw `StoreBusyError` with how long it waited, what the
 * last lock error was, and the holder text. Any other error propagates at once. The attempt must
 * be safe to repeat (a whole `BEGIN IMMEDIATE … COMMIT` callback, rolled back on failure).
 */
export function withPatience<T>(attempt: () => T, options: PatienceOptions): T {
  // The budget starts before the first attempt; the clock that times the retries is only built
  // when one fails (every read and write of the store runs through here).
  const started = (options.now ?? Date.now)();
  try {
    return attempt();
  } catch (error) {
    return retryPatiently(attempt, options, started, error);
  }
}

function retryPatiently<T>(attempt: () => T, options: PatienceOptions, started: number, first: unknown): T {
  const wait = patienceClock(options, started);
  const sleep = options.sleep ?? sleepSync;
  let error = first;
  for (;;) {
    sleep(wait(error));
    try {
      return attempt();
    } catch (next) {
      error = next;
    }
  }
}

/** `withPatience` for an asynchronous attempt (the async runner): the same waits, slept on a
 * timer instead of blocking the thread. */
export async function withPatienceAsync<T>(
  attempt: () => Promise<T>,
  options: Omit<PatienceOptions, "sleep"> & { sleep?: (ms: number) => Promise<void> },
): Promise<T> {
  const wait = patienceClock(options);
  const sleep = options.sleep ?? sleepAsync;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      await sleep(wait(error));
    }
  }
}

/** The budget started at `started` (default: now): for each failed attempt, how long to sleep
 * before the next one, or the error to throw (not contention, or the budget spent). `at` is the
 * time of the failure (default: now), for a caller that reads its clock through an effect (the
 * policy's `patient` operation). */
export function patienceClock(
  options: Omit<PatienceOptions, "sleep">,
  started = (options.now ?? Date.now)(),
): (error: unknown, at?: number) => number {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const deadline = started + budget(options.budgetMs);
  return (error, at = now()) => {
    if (!isContention(error) && !options.retryable?.(error)) throw error;
    const here = isContention(error) ? options.heldHere?.() : undefined;
    if (here !== undefined) {
      throw new StoreBusyError(
        at - started,
        `The lock is held in this thread, by ${here}: it is let go only when this thread returns to that code, so waiting would have blocked the thread until the timeout, and the call was refused at once instead; make it after that code has finished. Last lock error: ${(error as Error).message}.`,
        { cause: error },
      );
    }
    if (at >= deadline) {
      throw new StoreBusyError(at - started, describe(options, error as Error), { cause: error });
    }
    const [low, high] = jitterBand(options.jitter, at - started);
    const interval = Math.min(high, low + Math.floor(random() * (high - low + 1)));
    // The last sleep ends exactly at the deadline, so the final attempt happens at the budget
    // and not a jitter interval after it.
    return Math.min(interval, deadline - at);
  };
}
