/** Core's conformance suite on the libSQL store under vitest (Node): sqld over HTTP and over a
 * WebSocket (see conformance-target.ts). */
import { runConformance } from "@sessiondb/conformance";
import { resolveDriver } from "@sessiondb/node";
import { sqldAvailability } from "@sessiondb/test-sqld";
import { describe, it } from "vitest";
import { skippingKnownGaps, sqldTarget } from "./conformance-target.js";

const available = sqldAvailability();
if (available.ok) {
  for (const transport of ["http", "ws"] as const)
    runConformance(sqldTarget(skippingKnownGaps({ describe, it }, it.skip), transport, resolveDriver()));
} else {
  describe.skip(`conformance on sqld — skipped: ${available.reason}`, () => {});
}
