/**
 * @sessiondb/test-sqld — a real libSQL server (sqld) for this repository's tests. See README.md.
 *
 * @example
 * const available = sqldAvailability();
 * if (!available.ok) skip(available.reason);
 * const { primary, replica, stop } = await startSqldPair();
 * // … createClient({ url: replica.httpUrl }) …
 * await replica.kill();        // kill -9
 * await replica.restart();     // same ports, same data
 * await stop();
 */
export { type SqldAuth, sqldAuth } from "./auth.js";
export { type SqldAvailability, sqldAvailability } from "./binary.js";
export { stopProcess } from "./process.js";
export {
  type SqldOptions,
  type SqldServer,
  SqldUnavailableError,
  startSqld,
  startSqldPair,
} from "./server.js";
