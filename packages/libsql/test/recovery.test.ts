/**
 * FTS recovery and integrity through the server. Deferred recovery, decided by the lease: a store
 * that finds its index in need of a rebuild while another client holds the lease opens anyway
 * (search stays correct by LIKE) and rebuilds on `retryDeferredFtsRecovery()` once the lease is
 * free. Fail-open: a corrupt index found by a search is detached (LIKE answers) and rebuilt under
 * the lease. `checkIntegrity()` whose own answer is lost on the way back: the check only reads
 * (PRAGMA integrity_check, FTS5's 'integrity-check'), so that is a lost connection — asked again
 * within patience — and never a finding that the store is damaged.
 */
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLibsqlExecutor } from "../src/executor.js";
import { leaseAdmission } from "../src/lease.js";
import { openStore } from "../src/open.js";
import { cuttingProxy } from "./support/cutting-proxy.js";

const available = sqldAvailability();

describe.skipIf(!available.ok)(
  `FTS recovery and integrity on sqld${available.ok ? "" : ` (skipped: ${available.reason})`}`,
  () => {
    let server: SqldServer;
    beforeAll(async () => {
      server = await startSqld();
    });
    afterAll(async () => {
      await server?.stop();
    });

    it("a rebuild denied by another client's lease is deferred, then done once the lease is free", async () => {
      const first = await openStore(server.httpUrl);
      const { id } = await first.createSession({ source: "recovery" });
      await first.appendMessages(id, [
        { role: "user", content: "deploy the gateway" },
        { role: "assistant", content: "gateway deployed" },
      ]);
      await first.close();

      // Detach the index as fail-open does after finding it corrupt (the stale breadcrumb, no
      // triggers), and write while it is detached: the next writable open must rebuild it.
      const raw = await openLibsqlExecutor(server.httpUrl);
      await raw.execute(
        `INSERT INTO state_meta (key, value) VALUES ('fts_stale', '{"at":"2026-01-01T00:00:00.000Z","reason":"test"}')`,
        [],
      );
      const { rows } = await raw.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'messages_fts%'",
        [],
      );
      for (const row of rows) await raw.execute(`DROP TRIGGER "${row.name}"`, []);
      const detached = await openStore(server.httpUrl, { admissionTimeoutMs: 0, repairFtsOnOpen: false });
      await detached.appendMessage(id, { role: "user", content: "gateway written while detached" });
      await detached.close();
      const held = await leaseAdmission(raw).acquire({ timeoutMs: 0 });
      expect(held.admitted).toBe(true);

      const store = await openStore(server.wsUrl, { admissionTimeoutMs: 0, recoveryBackoff: { baseMs: 0 } });
      try {
        expect((await store.ftsStatus()).state).toBe("stale");
        const meanwhile = await store.search("gateway");
        expect(meanwhile.route).toBe("like");
        expect(meanwhile.hits).toHaveLength(3);
        expect(await store.retryDeferredFtsRecovery()).toBe(false);

        if (held.admitted) await held.lease.release();
        let rebuilt = false;
        for (let i = 0; i < 20 && !rebuilt; i++) {
          rebuilt = await store.retryDeferredFtsRecovery();
          if (!rebuilt) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(rebuilt).toBe(true);
        expect((await store.ftsStatus()).state).toBe("ready");
        const after = await store.search("gateway");
        expect(after.route).toBe("fts");
        expect(after.hits.map((hit) => hit.messageId).sort()).toEqual(
          meanwhile.hits.map((hit) => hit.messageId).sort(),
        );
        expect((await store.checkIntegrity()).ok).toBe(true);
      } finally {
        await store.close();
        raw.close();
      }
    });

    it("fail-open: a corrupt index found by a search is detached (LIKE answers), then rebuilt under the lease", async () => {
      const store = await openStore(server.httpUrl);
      const raw = await openLibsqlExecutor(server.httpUrl);
      try {
        const { id } = await store.createSession({ source: "fail-open" });
        await store.appendMessages(
          id,
          Array.from({ length: 50 }, (_, k) => ({
            role: "user" as const,
            content: `corruption probe ${k} lantern`,
          })),
        );
        // Real damage, made through the server: overwrite the word index's b-tree blocks.
        const damaged = await raw.execute(
          "UPDATE messages_fts_data SET block = randomblob(length(block)) WHERE id > 10",
          [],
        );
        expect(damaged.changes).toBeGreaterThan(0);
        const found = await store.search("lantern", { limit: 100 });
        expect(found.route).toBe("like");
        expect(found.hits).toHaveLength(50);
        expect((await store.ftsStatus()).state).toBe("stale");
        expect((await store.rebuildFts()).rebuilt).toBe(true);
        expect((await store.search("lantern", { limit: 100 })).route).toBe("fts");
        expect((await store.checkIntegrity()).ok).toBe(true);
      } finally {
        raw.close();
        await store.close();
      }
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
