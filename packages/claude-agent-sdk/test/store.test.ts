/**
 * The SessionStore cases under vitest: @sessiondb/node on a temp file with its default driver
 * (better-sqlite3 on Node 20, node:sqlite on Node 24), and a real sqld through @sessiondb/libsql.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore as openLibsql } from "@sessiondb/libsql";
import { openStore } from "@sessiondb/node";
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { afterAll, beforeAll, describe, it } from "vitest";
import { storeCases } from "./store-cases.js";

const hooks = { before: beforeAll, after: afterAll };
const dir = mkdtempSync(join(tmpdir(), "sessiondb-claude-agent-sdk-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

storeCases(describe, it, hooks, {
  name: `@sessiondb/node on Node ${process.versions.node}`,
  open: async () => openStore(join(dir, "store.db")),
  close: async (store) => void (await store.close()),
});

let server: SqldServer | undefined;
const sqld = sqldAvailability();
storeCases(describe, it, hooks, {
  name: "sqld",
  ...(sqld.ok ? {} : { skip: sqld.reason }),
  open: async () => {
    server = await startSqld();
    return openLibsql(server.httpUrl);
  },
  close: async (store) => {
    await store.close();
    await server?.stop();
  },
});
