/**
 * Group commit over a real sqld, written once for vitest (Node), `bun test` and `deno test`:
 * 50 sessions appending at once through one store resolve with what the same calls return one
 * at a time (on a second server), in a handful of write transactions; a call that fails at the
 * database inside a group (its session deleted meanwhile, a trigger's constraint) fails alone;
 * calls on one session keep their order.
 */
import assert from "node:assert/strict";
import { appendCalls, storedMessages } from "@sessiondb/conformance";
import { type AsyncStore, createAsyncStore } from "@sessiondb/core";
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { openLibsqlExecutor } from "../src/executor.js";
import { openStore } from "../src/index.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>, timeoutMs?: number) => void;
type Hooks = { before(fn: () => Promise<void>): void; after(fn: () => Promise<void>): void };

/** A store on `url` (created there by openStore first) whose executor counts its write
 * transactions. */
async function counted(url: string): Promise<{ store: AsyncStore; writes(): number }> {
  await (await openStore(url)).close();
  const executor = await openLibsqlExecutor(url);
  let writes = 0;
  const transaction = executor.transaction.bind(executor);
  executor.transaction = (mode, fn, options) => {
    if (mode === "write") writes++;
    return transaction(mode, fn, options);
  };
  return { store: await createAsyncStore(executor), writes: () => writes };
}

export function groupCommitCases(describe: Suite, it: Test, hooks: Hooks): void {
  const available = sqldAvailability();
  if (!available.ok) {
    describe(`group commit on sqld — skipped: ${available.reason}`, () => {});
    return;
  }

  describe("group commit on sqld", () => {
    let grouped: SqldServer;
    let serial: SqldServer;
    hooks.before(async () => {
      [grouped, serial] = await Promise.all([startSqld(), startSqld()]);
    });
    hooks.after(async () => {
      await Promise.all([grouped?.stop(), serial?.stop()]);
    });

    it("50 sessions appending at once: the results of the same calls one at a time, in a few transactions", async () => {
      const together = await counted(grouped.httpUrl);
      const alone = await counted(serial.httpUrl);
      const sessions = Array.from({ length: 50 }, (_, i) => `gw-${i}`);
      try {
        for (const { store } of [together, alone])
          for (const id of sessions) await store.createSession({ id, source: "gateway" });
        // Two rounds: the first as 50 sessions' turns arriving at once, the second the same.
        const calls = [0, 1].flatMap((round) =>
          sessions.map((session, i) => ({ session, content: `turn ${round}.${i}`, many: i % 4 === 0 })),
        );
        const first = together.writes();
        const groupedResults = [
          ...(await appendCalls(together.store, calls.slice(0, 50), true)),
          ...(await appendCalls(together.store, calls.slice(50), true)),
        ];
        const groupedWrites = together.writes() - first;
        const start = alone.writes();
        const serialResults = await appendCalls(alone.store, calls, false);
        assert.equal(alone.writes() - start, 100);
        assert.deepEqual(groupedResults, serialResults);
        assert.deepEqual(
          await storedMessages(together.store, sessions),
          await storedMessages(alone.store, sessions),
        );
        // Each round: the first call alone (nothing was in flight), the other 49 together.
        assert.ok(groupedWrites <= 6, `${groupedWrites} write transactions for 100 calls`);
        const hits = await together.store.search("turn", { limit: 200 });
        assert.equal(hits.hits.length, 126);
      } finally {
        await together.store.close();
        await alone.store.close();
      }
    }, 120_000);

    it("a call failing at the database inside a group fails alone; the others commit", async () => {
      const together = await counted(grouped.wsUrl);
      const alone = await counted(serial.wsUrl);
      const sessions = ["f-a", "f-b", "f-c", "f-gone"];
      try {
        for (const { store } of [together, alone]) {
          for (const id of sessions) await store.createSession({ id, source: "gateway" });
          await store.deleteSession("f-gone");
        }
        // A failure after the member's first statement (its session's counters moved): only the
        // group's rollback undoes that. The trigger goes in through a raw client statement.
        for (const url of [grouped.httpUrl, serial.httpUrl]) {
          const raw = await openLibsqlExecutor(url);
          await raw.execute(
            "CREATE TRIGGER IF NOT EXISTS poison BEFORE INSERT ON messages WHEN NEW.content = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned row'); END",
            [],
          );
          raw.close();
        }
        const calls = Array.from({ length: 24 }, (_, i) => ({
          session: sessions[i % 4] as string,
          content: i === 13 ? "poison" : `row ${i}`,
          many: i % 5 === 0,
        }));
        const groupedResults = await appendCalls(together.store, calls, true);
        const serialResults = await appendCalls(alone.store, calls, false);
        assert.deepEqual(groupedResults, serialResults);
        assert.equal(groupedResults[13], "SQLITE_CONSTRAINT");
        assert.equal(groupedResults.filter((r) => r === "SESSION_NOT_FOUND").length, 6);
        assert.deepEqual(
          await storedMessages(together.store, sessions.slice(0, 3)),
          await storedMessages(alone.store, sessions.slice(0, 3)),
        );
      } finally {
        await together.store.close();
        await alone.store.close();
      }
    }, 120_000);

    it("calls on one session keep their call order", async () => {
      const store = await openStore(grouped.httpUrl);
      try {
        for (const id of ["o-x", "o-y", "o-z"]) await store.createSession({ id, source: "gateway" });
        const calls = Array.from({ length: 60 }, (_, i) => ({
          session: ["o-x", "o-y", "o-z"][i % 3] as string,
          content: `m${String(i).padStart(2, "0")}`,
          many: i % 7 === 0,
        }));
        await appendCalls(store, calls, true);
        for (const id of ["o-x", "o-y", "o-z"]) {
          const expected = calls
            .filter((c) => c.session === id)
            .flatMap((c) => (c.many ? [`${c.content} a`, `${c.content} b`] : [c.content]));
          const messages = await store.getMessages(id);
          assert.deepEqual(
            messages.map((m) => m.content),
            expected,
          );
        }
      } finally {
        await store.close();
      }
    }, 120_000);
  });
}
