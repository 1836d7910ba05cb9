/**
 * The two ways to let time pass, the I/O behind the `pause` effect and lock patience: the sync
 * runner blocks its thread (its caller waits for the whole call anyway), the async runner and
 * the sync store's yielding jobs wait on a timer.
 */

let sleeper: Int32Array | undefined;

/**
 * Block the calling thread for `ms` milliseconds. `Atomics.wait` on a private
 * SharedArrayBuffer: nobody ever notifies it, so it always times out. Works on Node's main
 * thread, Bun and Deno (browsers forbid it on the main thread; core does not run there).
 */
export function sleepSync(ms: number): void {
  if (!(ms > 0)) return;
  sleeper ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Wait `ms` milliseconds on a timer: always a macrotask, never a microtask, so timers and I/O
 * callbacks get their turn. */
export const sleepAsync = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
