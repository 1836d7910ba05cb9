/** The chat cases under vitest on a real sqld (`@sessiondb/libsql`, an async store), over HTTP
 * and WebSocket. Skipped, saying why, where no sqld binary is available. */
import { sqldAvailability } from "@sessiondb/test-sqld";
import { afterAll, describe, it } from "vitest";
import { chatCases } from "./chat-cases.js";
import { sqldStore, stopSqld } from "./sqld-store.js";

const available = sqldAvailability();
if (available.ok) {
  afterAll(stopSqld);
  for (const transport of ["http", "ws"] as const) {
    describe(`@sessiondb/ai-sdk on sqld over ${transport}`, () =>
      chatCases(describe, it, sqldStore(transport)));
  }
} else {
  describe.skip(`@sessiondb/ai-sdk on sqld — skipped: ${available.reason}`, () => {});
}
