/** The chat cases under `bun test`: on bun:sqlite (`@sessiondb/bun`), and on a real sqld when a
 * binary is available (skipped, saying why, otherwise). */
import { afterAll, describe, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@sessiondb/bun";
import { sqldAvailability } from "@sessiondb/test-sqld";
import { chatCases } from "./chat-cases.js";
import { sqldStore, stopSqld } from "./sqld-store.js";

describe(`@sessiondb/ai-sdk on bun:sqlite (Bun ${Bun.version})`, () => {
  chatCases(describe, it, async () => {
    const dir = mkdtempSync(join(tmpdir(), "sessiondb-ai-sdk-"));
    const store = openStore(join(dir, "chats.db"));
    return {
      store,
      close: async () => {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

const available = sqldAvailability();
if (available.ok) {
  afterAll(stopSqld);
  describe("@sessiondb/ai-sdk on sqld over http (Bun)", () => chatCases(describe, it, sqldStore("http")));
} else {
  describe.skip(`@sessiondb/ai-sdk on sqld — skipped: ${available.reason}`, () => {});
}
