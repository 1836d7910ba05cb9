/**
 * Patience through a real server: a store whose server goes away and comes back within the
 * budget never notices (the call waits and succeeds); one that stays away ends in
 * StoreBusyError naming the last failure; nothing is stored twice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreBusyError } from "@sessiondb/core";
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/open.js";

const available = sqldAvailability();

describe.skipIf(!available.ok)(
  `patience on sqld${available.ok ? "" : ` (skipped: ${available.reason})`}`,
  () => {
    const folder = mkdtempSync(join(tmpdir(), "sessiondb-libsql-patience-"));
    let server: SqldServer;
    beforeAll(async () => {
      server = await startSqld({ dir: folder });
    });
    afterAll(async () => {
      await server?.stop();
      rmSync(folder, { recursive: true, force: true });
    });

    for (const transport of ["http", "ws"] as const) {
      it(`over ${transport}: a server restarted within the budget is invisible; one that stays away is StoreBusyError`, async () => {
        const url = () => (transport === "http" ? server.httpUrl : server.wsUrl);
        const store = await openStore(url(), { patience: { writeMs: 10_000, appendMs: 10_000 } });
        try {
          const { id } = await store.createSession({ source: `patience-${transport}` });
          await server.kill();
          const started = Date.now();
          const pending = store.appendMessage(id, { role: "user", content: "waited for the server" });
          await new Promise((resolve) => setTimeout(resolve, 800));
          await server.restart();
          await pending;
          expect(Date.now() - started).toBeGreaterThanOrEqual(700);
          expect((await store.getMessages(id)).map((m) => m.content)).toEqual(["waited for the server"]);

          const quick = await openStore(url(), { patience: { writeMs: 600, appendMs: 600 } });
          await server.kill();
          const error = await quick.appendMessage(id, { role: "user", content: "never stored" }).then(
            () => undefined,
            (e: unknown) => e,
          );
          await quick.close();
          expect(error).toBeInstanceOf(StoreBusyError);
          expect((error as Error).message).toMatch(/unreachable/);
          await server.restart();
          expect((await store.getMessages(id)).map((m) => m.content)).toEqual(["waited for the server"]);
        } finally {
          await store.close();
          if (!server.running) await server.restart();
        }
      }, 90_000);
    }
  },
);
