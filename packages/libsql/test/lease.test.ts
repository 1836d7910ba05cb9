/**
 * The lease row on a real sqld: one holder at a time (also when clients race for it), the holder
 * named to the others, renewal keeping it, release handing it over, and a holder that stops
 * renewing — as a killed one does — losing it when it expires, never later. Short leases here;
 * the store's lease is LEASE_MS.
 */
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LibsqlExecutor, openLibsqlExecutor } from "../src/executor.js";
import { LEASE_MS, leaseAdmission, RENEW_EVERY_MS } from "../src/lease.js";
import { cuttingProxy } from "./support/cutting-proxy.js";

const available = sqldAvailability();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!available.ok)(
  `the lease row${available.ok ? "" : ` (skipped: ${available.reason})`}`,
  () => {
    let server: SqldServer;
    const clients: LibsqlExecutor[] = [];
    const client = async () => {
      const db = await openLibsqlExecutor(server.httpUrl);
      clients.push(db);
      return db;
    };

    beforeAll(async () => {
      server = await startSqld();
      const db = await client();
      await db.execute(
        'CREATE TABLE "state_meta" ("key" TEXT NOT NULL, "value" TEXT, PRIMARY KEY ("key"))',
        [],
      );
    });
    afterAll(async () => {
      for (const db of clients) db.close();
      await server.stop();
    });

    it("renews at a third of its length", () => {
      expect(RENEW_EVERY_MS * 3).toBe(LEASE_MS);
    });

    it("admits one holder; another is told who holds it; release hands it over", async () => {
      const [a, b] = [leaseAdmission(await client()), leaseAdmission(await client())];
      const first = await a.acquire({ timeoutMs: 0 });
      expect(first.admitted).toBe(true);
      const second = await b.acquire({ timeoutMs: 0 });
      expect(second).toMatchObject({
        admitted: false,
        reason: "held",
        holder: { pid: process.pid, driver: "libsql" },
      });
      expect(second.admitted || second.message).toMatch(new RegExp(`held by pid ${process.pid} \\(node`));
      if (!first.admitted) return;
      await first.lease.release();
      await first.lease.release();
      const third = await b.acquire({ timeoutMs: 0 });
      expect(third.admitted).toBe(true);
      if (third.admitted) await third.lease.release();
    });

    it("clients racing for a free lease: exactly one wins", async () => {
      const racers = await Promise.all(Array.from({ length: 6 }, async () => leaseAdmission(await client())));
      const answers = await Promise.all(racers.map((racer) => racer.acquire({ timeoutMs: 0 })));
      const winners = answers.filter((answer) => answer.admitted);
      expect(winners.length).toBe(1);
      for (const winner of winners) if (winner.admitted) await winner.lease.release();
    });

    it("renewal keeps it past its length; a holder that stops renewing loses it at expiry, not before", async () => {
      const timing = { leaseMs: 1_500, renewEveryMs: 500 };
      const holderDb = await client();
      const holder = leaseAdmission(holderDb, timing);
      const waiter = leaseAdmission(await client(), timing);
      const held = await holder.acquire({ timeoutMs: 0 });
      if (!held.admitted) throw new Error("not admitted");
      for (let i = 0; i < 5; i++) {
        await sleep(500);
        await held.lease.renew();
      }
      expect((await waiter.acquire({ timeoutMs: 0 })).admitted).toBe(false);

      // The holder stops renewing (as a killed process does): the waiter gets it when it expires.
      await held.lease.renew();
      const stopped = Date.now();
      const taken = await waiter.acquire({ timeoutMs: 10_000 });
      const waited = Date.now() - stopped;
      expect(taken.admitted).toBe(true);
      expect(waited).toBeGreaterThanOrEqual(1_000);
      expect(waited).toBeLessThan(1_500 + 1_000);
      // The old holder's release must not free the new holder's lease.
      await held.lease.release();
      expect((await leaseAdmission(await client()).acquire({ timeoutMs: 0 })).admitted).toBe(false);
      if (taken.admitted) await taken.lease.release();
    });

    it("does not renew while its own write transaction is open (it would queue behind it)", async () => {
      const db = await client();
      const held = await leaseAdmission(db).acquire({ timeoutMs: 0 });
      if (!held.admitted) throw new Error("not admitted");
      await db.transaction("write", async (tx) => {
        await tx.execute("INSERT OR REPLACE INTO state_meta (key, value) VALUES ('other', 'x')", []);
        const started = Date.now();
        await held.lease.renew();
        expect(Date.now() - started).toBeLessThan(1_000);
      });
      await held.lease.renew();
      await held.lease.release();
    });

    it("a take whose answer was lost is settled by the token: the lease is held, once", async () => {
      const proxy = await cuttingProxy(server.httpUrl);
      const db = await openLibsqlExecutor(proxy.url);
      clients.push(db);
      try {
        proxy.cutOn("INSERT INTO state_meta");
        const taken = await leaseAdmission(db).acquire({ timeoutMs: 5_000 });
        expect(proxy.cuts).toBe(1);
        expect(taken.admitted).toBe(true);
        const other = await leaseAdmission(await client()).acquire({ timeoutMs: 0 });
        expect(other).toMatchObject({ admitted: false, reason: "held" });
        if (taken.admitted) await taken.lease.release();
        expect((await leaseAdmission(await client()).acquire({ timeoutMs: 0 })).admitted).toBe(true);
      } finally {
        await proxy.close();
      }
    });

    it("without its table the admission is refused as the environment's, with the code", async () => {
      const other = await startSqld();
      const db = await openLibsqlExecutor(other.httpUrl);
      try {
        const answer = await leaseAdmission(db).acquire({ timeoutMs: 1_000 });
        expect(answer).toMatchObject({ admitted: false, reason: "environment", code: "ERROR" });
      } finally {
        db.close();
        await other.stop();
      }
    });
  },
);
