/** The chat cases under vitest, on an embedded store: better-sqlite3 on Node 20, node:sqlite on
 * Node 24 (the package's second test run). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@sessiondb/node";
import { describe, it } from "vitest";
import { chatCases } from "./chat-cases.js";

const driver = Number(process.versions.node.split(".")[0]) >= 22 ? "node:sqlite" : "better-sqlite3";

describe(`@sessiondb/ai-sdk on ${driver} (Node ${process.versions.node})`, () => {
  chatCases(describe, it, async () => {
    const dir = mkdtempSync(join(tmpdir(), "sessiondb-ai-sdk-"));
    const store = openStore(join(dir, "chats.db"), { driver });
    return {
      store,
      close: async () => {
        store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});
