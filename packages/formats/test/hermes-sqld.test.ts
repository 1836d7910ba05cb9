/**
 * The Hermes import into an async store: `@sessiondb/libsql` on a real sqld, the state.db read
 * with Node's driver. The same counts as on an embedded store, and a re-import adds nothing.
 * Skipped, saying why, where no sqld binary is available.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { openStore } from "@sessiondb/libsql";
import { resolveDriver } from "@sessiondb/node";
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { afterAll, describe, it } from "vitest";
import { hermes, importFrom } from "../src/index.js";
import { CHILD, hermesHome, MAIN } from "./support/hermes.js";

const available = sqldAvailability();
let server: SqldServer | undefined;
afterAll(async () => server?.stop());

describe.skipIf(!available.ok)(
  `importFrom hermes into a libSQL server${available.ok ? "" : ` — skipped: ${available.reason}`}`,
  () => {
    it("stores the sessions with their counts and usage; again, nothing", async () => {
      server ??= await startSqld();
      const driver = resolveDriver();
      const { home, database } = hermesHome(driver);
      const store = await openStore(server.httpUrl);
      try {
        const first = await importFrom(store, hermes, [database], { driver });
        assert.deepEqual(first.sessions, { created: 2, grown: 0, unchanged: 0 });
        assert.equal(first.messages, 18);
        assert.equal((await store.getSession(CHILD))?.parentSessionId, MAIN);
        assert.equal((await store.getSession(MAIN))?.messageCount, 9);
        assert.equal((await store.getSession(MAIN))?.endReason, "user_exit");
        const usage = (await store.getUsage(MAIN))
          .map((u) => [u.model, u.inputTokens, u.outputTokens])
          .sort();
        assert.deepEqual(usage, [
          ["claude-sonnet-4-5", 20000, 1200],
          ["hermes-4-405b", 300, 150],
        ]);
        const again = await importFrom(store, hermes, [database], { driver });
        assert.deepEqual(again.sessions, { created: 0, grown: 0, unchanged: 2 });
        assert.equal(again.messages, 0);
      } finally {
        await store.close();
        rmSync(home, { recursive: true, force: true });
      }
    });
  },
);
