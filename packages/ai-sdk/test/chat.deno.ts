/** The chat cases under `deno test` (node:test's describe/it): on node:sqlite
 * (`@sessiondb/deno`), and on a real sqld when a binary is available (skipped, saying why,
 * otherwise). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openStore } from "@sessiondb/deno";
import { sqldAvailability } from "@sessiondb/test-sqld";
import { chatCases } from "./chat-cases.ts";
import { sqldStore, stopSqld } from "./sqld-store.ts";

describe(`@sessiondb/ai-sdk on node:sqlite (Deno ${Deno.version.deno})`, () => {
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
  describe("@sessiondb/ai-sdk on sqld over http (Deno)", () => {
    after(stopSqld);
    chatCases(describe, it, sqldStore("http"));
  });
} else {
  describe.skip(`@sessiondb/ai-sdk on sqld — skipped: ${available.reason}`, () => {});
}
