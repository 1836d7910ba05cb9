/** The conformance suite on the libSQL store under vitest (Node): sqld over a WebSocket (see
 * conformance-target.ts). Over HTTP: conformance.test.ts. */
import { runConformance } from "@sessiondb/conformance";
import { resolveDriver } from "@sessiondb/node";
import { sqldAvailability } from "@sessiondb/test-sqld";
import { describe, it } from "vitest";
import { skippingKnownGaps, sqldTarget } from "./conformance-target.js";

const available = sqldAvailability();
if (available.ok) {
  runConformance(sqldTarget(skippingKnownGaps({ describe, it }, it.skip), "ws", resolveDriver()));
} else {
  describe.skip(`conformance on sqld over a WebSocket — skipped: ${available.reason}`, () => {});
}
