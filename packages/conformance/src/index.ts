/**
 * The conformance suite: every driver on every runtime proves the same behaviour — the Store's
 * (`runConformance`) and, below it, the driver seam's (`runDriverContract`).
 *
 * @example
 * import { describe, it } from "vitest";            // or "bun:test", or "node:test" under deno
 * import { runConformance, runDriverContract } from "@sessiondb/conformance";
 * runConformance({ name: "my-driver", driver: myDriver(), host: nodeFsHost, describe, it });
 * runDriverContract({ name: "my-driver", driver: myDriver(), describe, it });
 */

import { backupSuite } from "./backup.js";
import { badInputSuite } from "./bad-input.js";
import { busyReadsSuite } from "./busy-reads.js";
import { deleteSessionsSuite } from "./delete-sessions.js";
import { diskFullSuite } from "./disk-full.js";
import { durabilitySuite } from "./durability.js";
import { filesSuite } from "./files.js";
import { ftsSuite } from "./fts.js";
import { type ConformanceTarget, suiteIf } from "./harness.js";
import { importSessionsSuite } from "./import-sessions.js";
import { modelSuite } from "./model.js";
import { openSuite } from "./open.js";
import { originalsSuite } from "./originals.js";
import { repairSuite } from "./repair.js";
import { repairRowsSuite } from "./repair-rows.js";
import { searchBoundsSuite } from "./search-bounds.js";
import { searchPagingSuite } from "./search-paging.js";
import { searchStateSuite } from "./search-state.js";
import { statsSuite } from "./stats.js";
import { storeApiSuite } from "./store-api.js";
import { transactionSuite } from "./transaction.js";
import { transactionCallsSuite } from "./transaction-calls.js";
import { vacuumSuite } from "./vacuum.js";
import { valuesSuite } from "./values.js";

export { type AppendCall, appendCalls, storedMessages } from "./append-calls.js";
export {
  type AppenderChild,
  appendUntilKilled,
  type ChildAppender,
  childAppender,
  waitForAcks,
} from "./appender.js";
export {
  type DriverContractTarget,
  type ExtendedCodes,
  type LockHolder,
  runDriverContract,
} from "./driver-contract.js";
export { garbage } from "./driver-harness.js";
export type { Capability, ConformanceStore, ConformanceTarget, Runner } from "./harness.js";
export { childLockHolder } from "./lock-holder.js";

/** Register the whole suite with the runner's describe/it. */
export function runConformance(target: ConformanceTarget): void {
  target.describe(`sessiondb conformance (${target.name})`, () => {
    openSuite(target);
    durabilitySuite(target);
    storeApiSuite(target);
    originalsSuite(target);
    statsSuite(target);
    transactionSuite(target);
    transactionCallsSuite(target);
    valuesSuite(target);
    ftsSuite(target);
    badInputSuite(target);
    searchBoundsSuite(target);
    searchPagingSuite(target);
    searchStateSuite(target);
    suiteIf(target, "disk-full", "disk full", diskFullSuite);
    suiteIf(target, "files", "files and locks", filesSuite);
    suiteIf(target, "backup", "backup", backupSuite);
    busyReadsSuite(target);
    deleteSessionsSuite(target);
    importSessionsSuite(target);
    vacuumSuite(target);
    suiteIf(target, "repair", "repair", repairSuite);
    suiteIf(target, "repair", "repair of a row's bytes", repairRowsSuite);
    modelSuite(target);
  });
}
