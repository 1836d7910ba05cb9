/**
 * Letting the event loop catch up after this thread was held by synchronous work (a one-step
 * backup, a `VACUUM INTO`): a process signal that came meanwhile waits, unread, until the loop
 * next polls for I/O, and only then does its listener run (and abort what it was given to abort).
 */

import { sleepAsync } from "./engine/sleep.js";

/**
 * Resolves once the loop has polled for I/O, so a signal that arrived before the call has reached
 * its listeners. One zero timer is not enough: when the held work ran from a setImmediate or an
 * I/O callback (better-sqlite3 runs each backup step in a setImmediate) and a millisecond passes
 * before the loop comes round, the loop fires that timer before it polls, on Node, Bun and Deno
 * alike. A second timer armed from the first one's callback is due a millisecond later, after the
 * poll. (A setImmediate in its place does not let Deno's signals in.)
 */
export async function letEventsIn(): Promise<void> {
  await sleepAsync(0);
  await sleepAsync(0);
}

/** Between two steps of a long job that hold the thread: let the events in, then throw the
 * signal's reason when it was aborted meanwhile. Nothing to wait for without a signal. */
export async function abortPoint(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return;
  await letEventsIn();
  signal.throwIfAborted();
}
