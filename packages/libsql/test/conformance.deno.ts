/** Core's conformance suite on the libSQL store under `deno test` (node:test's describe/it; see
 * conformance-target.ts). */
import { describe, it } from "node:test";
import { runConformance } from "@sessiondb/conformance";
import { resolveDriver } from "@sessiondb/deno";
import { sqldAvailability } from "@sessiondb/test-sqld";
import { skippingKnownGaps, sqldTarget } from "./conformance-target.ts";

const available = sqldAvailability();
if (available.ok) {
  runConformance(
    sqldTarget(
      skippingKnownGaps({ describe, it }, (name, fn) => it.skip(name, fn)),
      "http",
      resolveDriver(),
    ),
  );
} else {
  describe.skip(`conformance on sqld — skipped: ${available.reason}`, () => {});
}
