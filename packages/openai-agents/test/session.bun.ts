/** The Session cases under `bun test`: bun:sqlite on a temp file. */
import { afterAll, beforeAll, describe, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@sessiondb/bun";
import { sessionCases } from "./session-cases.js";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-openai-agents-bun-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

sessionCases(
  describe,
  it,
  { before: beforeAll, after: afterAll },
  {
    name: "bun:sqlite",
    open: async () => openStore(join(dir, "session.db")),
    close: async (store) => void (await store.close()),
  },
);
