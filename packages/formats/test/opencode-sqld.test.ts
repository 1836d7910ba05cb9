/**
 * The opencode import into an async store: `@sessiondb/libsql` on a real sqld, opencode's
 * database read with Node's driver. The same counts and usage as on an embedded store, and a
 * re-import adds nothing. Skipped, saying why, where no sqld binary is available.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { openStore } from "@sessiondb/libsql";
import { resolveDriver } from "@sessiondb/node";
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { afterAll, describe, it } from "vitest";
import { importFrom, opencode } from "../src/index.js";
import { opencodeHome } from "./support/opencode.js";

const available = sqldAvailability();
let server: SqldServer | undefined;
afterAll(async () => server?.stop());

describe.skipIf(!available.ok)(
  `importFrom opencode into a libSQL server${available.ok ? "" : ` — skipped: ${available.reason}`}`,
  () => {
    it("stores the sessions with their counts and usage; again, nothing", async () => {
      server ??= await startSqld();
      const driver = resolveDriver();
      const home = opencodeHome(driver);
      home.writer.close();
      const store = await openStore(server.httpUrl);
      try {
        const first = await importFrom(store, opencode, [home.dir], { driver });
        assert.deepEqual(first.sessions, { created: 3, grown: 0, unchanged: 0 });
        assert.equal(first.messages, 44);
        assert.equal((await store.getSession("ses_02child"))?.parentSessionId, "ses_01main");
        assert.equal((await store.getSession("ses_01main"))?.messageCount, 14);
        const usage = (await store.getUsage("ses_01main"))
          .map((u) => [u.model, u.callCount, u.inputTokens, u.outputTokens, u.cacheReadTokens])
          .sort();
        assert.deepEqual(usage, [
          ["claude-sonnet-4-5", 2, 1400, 450, 11200],
          ["gpt-5", 1, 900, 400, 0],
        ]);
        const again = await importFrom(store, opencode, [home.dir], { driver });
        assert.deepEqual(again.sessions, { created: 0, grown: 0, unchanged: 3 });
        assert.equal(again.messages, 0);
      } finally {
        await store.close();
        rmSync(home.dir, { recursive: true, force: true });
      }
    });
  },
);
