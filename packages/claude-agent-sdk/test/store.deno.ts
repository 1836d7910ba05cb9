/** The SessionStore cases under `deno test` (node:test's describe/it and hooks): Deno's SQLite. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openStore } from "@sessiondb/deno";
import { storeCases } from "./store-cases.ts";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-claude-agent-sdk-deno-"));
after(() => rmSync(dir, { recursive: true, force: true }));

storeCases(
  describe,
  it,
  { before, after },
  {
    name: "Deno",
    open: async () => openStore(join(dir, "store.db")),
    close: async (store) => void (await store.close()),
  },
);
