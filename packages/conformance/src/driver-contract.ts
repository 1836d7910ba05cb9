/**
 * The driver contract: what every `SqliteDriver` must do below the Store. Each error class core
 * depends on is provoked for real (real files, real lock contention, real corruption) and the
 * normalized `SqliteError` is checked: result code, and extended code where the binding has one.
 * Like `runConformance`, it takes the runner's describe/it and asserts with node:assert/strict,
 * so it runs under vitest, bun:test and `deno test`.
 *
 * @example
 * import { describe, it } from "vitest";            // or "bun:test", or "node:test" under deno
 * import { runDriverContract } from "@sessiondb/conformance";
 * runDriverContract({ name: "my-driver", driver: myDriver(), describe, it });
 */
import { corruptionSuite } from "./driver-corruption.js";
import { lockAndOpenSuite } from "./driver-errors.js";
import { type DriverContractTarget, driverHarness } from "./driver-harness.js";
import { seamSuite } from "./driver-seam.js";

export type { DriverContractTarget, ExtendedCodes, LockHolder } from "./driver-harness.js";

/** Register the driver contract with the runner's describe/it. */
export function runDriverContract(target: DriverContractTarget): void {
  const h = driverHarness(target);
  target.describe(`driver contract (${target.name})`, () => {
    seamSuite(h);
    lockAndOpenSuite(h);
    corruptionSuite(h);
  });
}
