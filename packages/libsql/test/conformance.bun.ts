/** Core's conformance suite on the libSQL store under `bun test` (see conformance-target.ts). */
import { describe, it } from "bun:test";
import { resolveDriver } from "@sessiondb/bun";
import { runConformance } from "@sessiondb/conformance";
import { sqldAvailability } from "@sessiondb/test-sqld";
import { skippingKnownGaps, sqldTarget } from "./conformance-target.js";

const available = sqldAvailability();
if (available.ok) {
  runConformance(sqldTarget(skippingKnownGaps({ describe, it }, it.skip), "ws", resolveDriver()));
} else {
  describe.skip(`conformance on sqld — skipped: ${available.reason}`, () => {});
}
