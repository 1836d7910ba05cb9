/** Conformance: `store.transaction(fn)` groups Store calls atomically; `endSession` takes a time. */
import {
  assert,
  type ConformanceStore,
  type ConformanceTarget,
  failureOf,
  fixtureTest,
  isAsyncTarget,
  scalar,
  throwsCode,
  transact,
} from "./harness.js";

/** What another connection sees: committed rows only. */
function committed(conn: Parameters<typeof scalar>[0]) {
  return {
    sessions: Number(scalar(conn, "SELECT count(*) FROM sessions")),
    messages: Number(scalar(conn, "SELECT count(*) FROM messages")),
    usage: Number(scalar(conn, "SELECT count(*) FROM session_model_usage")),
  };
}

/** The CLI import's unit: one session with its transcript, usage and explicit times (a
 * transaction body: each call yielded, see `transact`). */
function* importSession(store: ConformanceStore, id: string): Generator<unknown, void> {
  yield store.createSession({ id, source: "import", startedAt: 1_600_000_000 });
  yield store.appendMessages(id, [
    { role: "user", content: `hello from ${id}` },
    { role: "assistant", content: "hi" },
  ]);
  yield store.recordUsage(id, { model: "m", inputTokens: 3, outputTokens: 2 });
  yield store.updateSession(id, { title: `imported ${id}` });
  yield store.endSession(id, "imported", { at: 1_600_000_060 });
}

export function transactionSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);

  describe("store.transaction", () => {
    test("commits every call of the body at once, with its return value", async ({ open, raw }) => {
      const store = await open();
      const other = raw();
      const result = await transact(target, store, function* (tx) {
        yield* importSession(tx, "s1");
        // Nothing is visible to another connection before the body returns.
        assert.deepEqual(committed(other), { sessions: 0, messages: 0, usage: 0 });
        return (yield tx.getMessages("s1")).length;
      });
      assert.equal(result, 2);
      assert.deepEqual(committed(other), { sessions: 1, messages: 2, usage: 1 });
      const session = await store.getSession("s1");
      assert.equal(session?.startedAt, 1_600_000_000);
      assert.equal(session?.endedAt, 1_600_000_060);
      assert.equal(session?.title, "imported s1");
      assert.equal(session?.messageCount, 2);
    });

    test("a throw rolls back every call of the body and reaches the caller unchanged", async ({
      open,
      raw,
    }) => {
      const store = await open();
      await store.createSession({ id: "kept", source: "cli" });
      const failure = new Error("the import's source file is truncated");
      const error = await failureOf(() =>
        transact(target, store, function* (tx) {
          yield* importSession(tx, "s1");
          yield tx.appendMessage("kept", { role: "user", content: "not stored" });
          yield tx.deleteSession("kept");
          throw failure;
        }),
      );
      assert.equal(error, failure);
      assert.deepEqual(committed(raw()), { sessions: 1, messages: 0, usage: 0 });
      assert.equal(await store.getSession("s1"), undefined);
      assert.equal(await store.messageCount("kept"), 0);
      assert.equal((await store.search("hello")).hits.length, 0);
      // The store goes on normally afterwards.
      await transact(target, store, (tx) => importSession(tx, "s2"));
      assert.equal((await store.search("hello")).hits.length, 1);
    });

    test("each call inside is atomic: a failed call that the body catches undoes only itself", async ({
      open,
    }) => {
      const store = await open();
      await transact(target, store, function* (tx) {
        yield tx.createSession({ id: "s1", source: "cli" });
        yield tx.appendMessage("s1", { role: "user", content: "first" });
        yield throwsCode(
          () => tx.appendMessages("s1", [{ role: "user", content: "ok" }, { role: "nobody" } as never]),
          "INVALID_INPUT",
        );
        yield throwsCode(
          () => tx.appendMessage("missing", { role: "user", content: "x" }),
          "SESSION_NOT_FOUND",
        );
        yield tx.appendMessage("s1", { role: "assistant", content: "second" });
      });
      assert.deepEqual(
        (await store.getMessages("s1")).map((m) => m.content),
        ["first", "second"],
      );
      assert.equal(await store.getSession("missing"), undefined);
    });

    test("a nested transaction joins the outer one; its throw undoes only its own calls", async ({
      open,
      raw,
    }) => {
      const store = await open();
      const other = raw();
      await transact(target, store, function* (tx) {
        yield tx.createSession({ id: "outer", source: "cli" });
        const inner = yield failureOf(() =>
          transact(target, tx, function* (nested) {
            yield nested.createSession({ id: "inner", source: "cli" });
            yield nested.appendMessage("inner", { role: "user", content: "undone" });
            throw new Error("inner fails");
          }),
        );
        assert.ok(inner instanceof Error);
        yield transact(target, tx, function* (nested) {
          yield nested.appendMessage("outer", { role: "user", content: "nested" });
        });
        // The nested commit is the outer one's: still invisible outside.
        assert.equal(committed(other).messages, 0);
      });
      assert.deepEqual(committed(other), { sessions: 1, messages: 1, usage: 0 });
      assert.equal(await store.getSession("inner"), undefined);
    });

    test("waits for a busy store with the write patience, then fails STORE_BUSY storing nothing", async ({
      open,
      raw,
    }) => {
      const store = await open({ patience: { writeMs: 150 } });
      await store.createSession({ id: "s1", source: "cli" });
      const holder = raw();
      holder.exec("BEGIN IMMEDIATE");
      const started = Date.now();
      await throwsCode(() => transact(target, store, (tx) => importSession(tx, "s2")), "STORE_BUSY");
      assert.ok(Date.now() - started >= 150, "the transaction gave up before its patience was spent");
      holder.exec("ROLLBACK");
      assert.equal(await store.getSession("s2"), undefined);
      await transact(target, store, (tx) => importSession(tx, "s2"));
      assert.equal((await store.getSession("s2"))?.endedAt, 1_600_000_060);
    });

    test("an async body: refused by a sync store (rolled back), awaited by an async one", async ({
      open,
    }) => {
      const store = await open();
      const run = () =>
        store.transaction(async (tx: ConformanceStore) => {
          const created = tx.createSession({ id: "s1", source: "cli" });
          await created;
          await Promise.resolve();
          return "done";
        });
      if (isAsyncTarget(target)) {
        assert.equal(await run(), "done");
        assert.equal((await store.getSession("s1"))?.id, "s1");
      } else {
        await throwsCode(run, "INVALID_INPUT");
        assert.equal(await store.getSession("s1"), undefined);
      }
    });

    test("index maintenance, backups and close are refused inside, rolling the body back", async ({
      open,
    }) => {
      const store = await open();
      const refusals: Array<(tx: ConformanceStore) => unknown> = [
        (tx) => tx.rebuildFts(),
        (tx) => tx.startFtsBackfill(),
        (tx) => tx.ftsBackfillStep(),
        (tx) => tx.optimizeFts(),
        (tx) => tx.retryDeferredFtsRecovery(),
        (tx) => tx.maintenanceTick(),
        (tx) => tx.close(),
      ];
      for (const call of refusals) {
        const error = await throwsCode(
          () =>
            transact(target, store, function* (tx) {
              yield tx.createSession({ id: "s1", source: "cli" });
              return yield call(tx);
            }),
          "INVALID_INPUT",
        );
        assert.match(error.message, /inside store\.transaction/);
        assert.equal(await store.getSession("s1"), undefined);
      }
    });

    test("on a read-only store the body reads one snapshot and writes are refused", async ({ open, raw }) => {
      await (await open()).createSession({ id: "s1", source: "cli" });
      const reader = await open({ readOnly: true });
      const writer = raw();
      const insert = () =>
        writer.exec("INSERT INTO sessions (id, source, started_at) VALUES ('s2', 'cli', 0)");
      const seen = await transact(target, reader, function* (tx) {
        const before = (yield tx.listSessions()).length;
        // In WAL a writer commits beside the snapshot, which does not see it; in a rollback
        // journal the snapshot's shared lock keeps the writer from committing at all.
        if (reader.journalMode === "wal") insert();
        else yield throwsCode(insert, "SQLITE_BUSY");
        yield throwsCode(() => tx.createSession({ id: "s3", source: "cli" }), "STORE_READONLY");
        return [before, (yield tx.listSessions()).length];
      });
      assert.deepEqual(seen, [1, 1]);
      if (reader.journalMode !== "wal") insert();
      assert.equal((await reader.listSessions()).length, 2);
    });

    test("the body must be a function", async ({ open }) => {
      const store = await open();
      for (const bad of [undefined, null, 1, "fn", {}]) {
        await throwsCode(() => store.transaction(bad as never), "INVALID_INPUT");
      }
    });
  });

  describe("endSession time", () => {
    test("endSession stores the given end time; the first end wins", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s1", source: "cli", startedAt: 1_600_000_000 });
      assert.equal((await store.endSession("s1", "done", { at: 1_600_000_123.5 })).endedAt, 1_600_000_123.5);
      const again = await store.endSession("s1", "again", { at: 1_700_000_000 });
      assert.equal(again.endedAt, 1_600_000_123.5);
      assert.equal(again.endReason, "done");
    });

    test("endSession without a time (or with null) ends the session now", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "a", source: "cli" });
      await store.createSession({ id: "b", source: "cli" });
      const before = Date.now() / 1000;
      const ends = [
        (await store.endSession("a", "done")).endedAt,
        (await store.endSession("b", "done", { at: null as never })).endedAt,
      ];
      const after = Date.now() / 1000;
      for (const at of ends) assert.ok(at !== null && at >= before - 1 && at <= after + 1, `endedAt ${at}`);
    });

    test("a bad end time is INVALID_INPUT naming endSession.at and ends nothing", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s1", source: "cli" });
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, "yesterday", 1e13]) {
        const error = await throwsCode(
          () => store.endSession("s1", "done", { at: bad as never }),
          "INVALID_INPUT",
        );
        assert.equal((error as Error & { field?: string }).field, "endSession.at");
      }
      await throwsCode(() => store.endSession("s1", "done", 5 as never), "INVALID_INPUT");
      assert.equal((await store.getSession("s1"))?.endedAt, null);
    });
  });
}
