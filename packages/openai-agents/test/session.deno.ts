/** The Session cases under `deno test` (node:test's describe/it and hooks): Deno's SQLite. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openStore } from "@sessiondb/deno";
import { sessionCases } from "./session-cases.ts";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-openai-agents-deno-"));
after(() => rmSync(dir, { recursive: true, force: true }));

sessionCases(
  describe,
  (name, body, timeout) => it(name, { timeout }, body),
  { before, after },
  {
    name: "Deno",
    open: async () => openStore(join(dir, "session.db")),
    close: async (store) => void (await store.close()),
  },
);
