/**
 * Conformance: `store.deleteSessions(ids)`. Sessions go whole — messages, usage, index entries —
 * in paced steps while another connection keeps appending; ids that name no session are reported,
 * not fatal; an abort between steps leaves every session either gone or untouched. Bad input, a
 * read-only store and a transaction are refused with nothing changed.
 */
import {
  assert,
  type ConformanceStore,
  type ConformanceTarget,
  fixtureTest,
  refusesInTransactionAndAborted,
  rejectsEach,
  throwsCode,
  whileAppending,
} from "./harness.js";

async function fill(store: ConformanceStore, id: string, rows: number): Promise<void> {
  await store.createSession({ id, source: "test" });
  await store.appendMessages(
    id,
    Array.from({ length: rows }, (_, n) => ({ role: "user" as const, content: `${id} zebra row ${n}` })),
  );
}

export function deleteSessionsSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);

  describe("deleteSessions", () => {
    test("deletes each session whole, in steps, while another connection appends; reports ids it did not find", async (f) => {
      const store = await f.open();
      await fill(store, "big", 300);
      await fill(store, "small", 5);
      await fill(store, "tiny", 1);
      await fill(store, "kept", 10);
      await store.recordUsage("big", { model: "m", inputTokens: 10 });
      await store.createSession({ id: "child", source: "test", parentSessionId: "big" });
      const other = await f.open();
      await other.createSession({ id: "live", source: "test" });
      const progress: Array<{ sessions: number; messages: number; totalSessions: number; done: boolean }> =
        [];
      const { result, appended } = await whileAppending(other, "live", () =>
        store.deleteSessions(["big", "small", "missing", "tiny", "small"], {
          onProgress: (p) => progress.push(p),
        }),
      );
      assert.equal(result.sessions, 3);
      assert.equal(result.messages, 306);
      assert.deepEqual(result.notFound, ["missing"]);
      assert.ok(result.durationMs >= 0);
      // The first step is small (200 messages): the 300-message session is a step of its own.
      assert.ok(progress.length >= 2, `one step only (${progress.length}): the job was not paced`);
      assert.deepEqual(progress[0], { sessions: 1, messages: 300, totalSessions: 4, done: false });
      assert.deepEqual(progress.at(-1), { sessions: 3, messages: 306, totalSessions: 4, done: true });
      assert.equal(progress.filter((p) => p.done).length, 1);
      await other.close();

      for (const id of ["big", "small", "tiny"]) assert.equal(await store.getSession(id), undefined);
      await throwsCode(() => store.getUsage("big"), "SESSION_NOT_FOUND");
      assert.equal((await store.getSession("child"))?.parentSessionId, null);
      assert.equal(await store.messageCount("kept"), 10);
      assert.equal(await store.messageCount("live"), appended);
      assert.equal(await store.messageCount(), 10 + appended);
      const hits = (await store.search("zebra", { limit: 100 })).hits;
      assert.deepEqual([...new Set(hits.map((h) => h.sessionId))], ["kept"]);
      assert.deepEqual(await store.checkIntegrity(), { ok: true, problems: [] });
      const { durationMs: _, ...nothing } = await store.deleteSessions([]);
      assert.deepEqual(nothing, { sessions: 0, messages: 0, notFound: [] });
      await store.close();
    });

    test("a step of 200 000 unknown ids is reported, not a crash", async (f) => {
      // More than a spread of arguments can carry on any runtime: the list is gathered one by one.
      const store = await f.open();
      await fill(store, "real", 1);
      const unknown = Array.from({ length: 200_000 }, (_, n) => `gone-${n}`);
      const result = await store.deleteSessions(["real", ...unknown]);
      assert.equal(result.sessions, 1);
      assert.equal(result.notFound.length, unknown.length);
      assert.equal(result.notFound.at(-1), unknown.at(-1));
      await store.close();
    });

    test("an abort between steps leaves each session gone or untouched", async (f) => {
      const store = await f.open();
      // Larger than the first step's chunk together (200 messages): two steps.
      await fill(store, "first", 150);
      await fill(store, "second", 100);
      const stop = new AbortController();
      await assert.rejects(
        store.deleteSessions(["first", "second"], { signal: stop.signal, onProgress: () => stop.abort() }),
      );
      assert.equal(await store.getSession("first"), undefined);
      assert.equal(await store.messageCount("second"), 100);
      assert.equal((await store.search("second zebra")).hits.length > 0, true);
      assert.deepEqual(await store.checkIntegrity(), { ok: true, problems: [] });
      await store.close();
    });

    test("bad input, a read-only store and a transaction are refused with nothing changed", async (f) => {
      const store = await f.open();
      await fill(store, "s", 20);
      const calls: Array<() => Promise<unknown>> = [
        () => store.deleteSessions("s" as never),
        () => store.deleteSessions(undefined as never),
        () => store.deleteSessions(["s", ""]),
        () => store.deleteSessions(["s", 5 as never]),
        () => store.deleteSessions(["s"], 5 as never),
        () => store.deleteSessions(["s"], { onProgress: 5 } as never),
        () => store.deleteSessions(["s"], { signal: {} } as never),
      ];
      await rejectsEach(calls, "deleteSessions", "INVALID_INPUT");
      await refusesInTransactionAndAborted(store, (s, signal) => s.deleteSessions(["s"], { signal }));
      assert.equal(await store.messageCount("s"), 20);
      await store.close();
      const reader = await f.open({ readOnly: true });
      await throwsCode(() => reader.deleteSessions(["s"]), "STORE_READONLY");
      assert.equal(await reader.messageCount("s"), 20);
    });
  });
}
