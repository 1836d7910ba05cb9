/**
 * `checkIntegrity()` through a server whose answer to the check itself is lost: the check only
 * reads (PRAGMA integrity_check, FTS5's 'integrity-check' command), so the lost answer is a lost
 * connection — asked again within patience — and never a finding that the store is damaged.
 */
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/open.js";
import { cuttingProxy } from "./support/cutting-proxy.js";

const available = sqldAvailability();

describe.skipIf(!available.ok)(
  `checkIntegrity over a lossy connection${available.ok ? "" : ` (skipped: ${available.reason})`}`,
  () => {
    let server: SqldServer;
    beforeAll(async () => {
      server = await startSqld();
    });
    afterAll(async () => {
      await server?.stop();
    });

    for (const [what, marker] of [
      ["the database check (PRAGMA integrity_check)", "PRAGMA integrity_check"],
      ["the FTS index check (FTS5 'integrity-check')", "integrity-check"],
    ] as const) {
      it(`a lost answer to ${what} is asked again, and the sound store is reported sound`, async () => {
        const proxy = await cuttingProxy(server.httpUrl);
        const store = await openStore(proxy.url);
        try {
          const { id } = await store.createSession({ source: "integrity" });
          await store.appendMessages(id, [
            { role: "user", content: "deploy the gateway" },
            { role: "assistant", content: "gateway deployed" },
          ]);
          proxy.cutOn(marker);
          const report = await store.checkIntegrity();
          expect(proxy.cuts).toBe(1);
          expect(report).toEqual({ ok: true, problems: [] });
        } finally {
          await store.close();
          await proxy.close();
        }
      });
    }
  },
);
