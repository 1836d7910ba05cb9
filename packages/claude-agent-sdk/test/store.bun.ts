/** The SessionStore cases under `bun test`: bun:sqlite on a temp file. */
import { afterAll, beforeAll, describe, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@sessiondb/bun";
import { storeCases } from "./store-cases.js";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-claude-agent-sdk-bun-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

storeCases(
  describe,
  it,
  { before: beforeAll, after: afterAll },
  {
    name: "bun:sqlite",
    open: async () => openStore(join(dir, "store.db")),
    close: async (store) => void (await store.close()),
  },
);
