/** Conformance: `store.transaction(fn)` groups Store calls atomically; `endSession` takes a time. */
import type { Store } from "../store.js";
import { assert, type ConformanceTarget, fixtureTest, scalar, throwsCode } from "./harness.js";

/** What another connection sees: committed rows only. */
function committed(conn: Parameters<typeof scalar>[0]) {
  return {
    sessions: Number(scalar(conn, "SELECT count(*) FROM sessions")),
    messages: Number(scalar(conn, "SELECT count(*) FROM messages")),
    usage: Number(scalar(conn, "SELECT count(*) FROM session_model_usage")),
  };
}

/** The CLI import's unit: one session with its transcript, usage and explicit times. */
function importSession(store: Store, id: string): void {
  store.createSession({ id, source: "import", startedAt: 1_600_000_000 });
  store.appendMessages(id, [
    { role: "user", content: `hello from ${id}` },
    { role: "assistant", content: "hi" },
  ]);
  store.recordUsage(id, { model: "m", inputTokens: 3, outputTokens: 2 });
  store.updateSession(id, { title: `imported ${id}` });
  store.endSession(id, "imported", { at: 1_600_000_060 });
}

export function transactionSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);

  describe("store.transaction", () => {
    test("commits every call of the body at once, with its return value", ({ open, raw }) => {
      const store = open();
      const other = raw();
      const result = store.transaction((tx) => {
        importSession(tx, "s1");
        // Nothing is visible to another connection before the body returns.
        assert.deepEqual(committed(other), { sessions: 0, messages: 0, usage: 0 });
        return tx.getMessages("s1").length;
      });
      assert.equal(result, 2);
      assert.deepEqual(committed(other), { sessions: 1, messages: 2, usage: 1 });
      const session = store.getSession("s1");
      assert.equal(session?.startedAt, 1_600_000_000);
      assert.equal(session?.endedAt, 1_600_000_060);
      assert.equal(session?.title, "imported s1");
      assert.equal(session?.messageCount, 2);
    });

    test("a throw rolls back every call of the body and reaches the caller unchanged", ({ open, raw }) => {
      const store = open();
      store.createSession({ id: "kept", source: "cli" });
      const failure = new Error("the import's source file is truncated");
      assert.throws(
        () =>
          store.transaction((tx) => {
            importSession(tx, "s1");
            tx.appendMessage("kept", { role: "user", content: "not stored" });
            tx.deleteSession("kept");
            throw failure;
          }),
        (error) => error === failure,
      );
      assert.deepEqual(committed(raw()), { sessions: 1, messages: 0, usage: 0 });
      assert.equal(store.getSession("s1"), undefined);
      assert.equal(store.messageCount("kept"), 0);
      assert.equal(store.search("hello").hits.length, 0);
      // The store goes on normally afterwards.
      store.transaction((tx) => importSession(tx, "s2"));
      assert.equal(store.search("hello").hits.length, 1);
    });

    test("each call inside is atomic: a failed call that the body catches undoes only itself", ({ open }) => {
      const store = open();
      store.transaction((tx) => {
        tx.createSession({ id: "s1", source: "cli" });
        tx.appendMessage("s1", { role: "user", content: "first" });
        throwsCode(
          () => tx.appendMessages("s1", [{ role: "user", content: "ok" }, { role: "nobody" } as never]),
          "INVALID_INPUT",
        );
        throwsCode(() => tx.appendMessage("missing", { role: "user", content: "x" }), "SESSION_NOT_FOUND");
        tx.appendMessage("s1", { role: "assistant", content: "second" });
      });
      assert.deepEqual(
        store.getMessages("s1").map((m) => m.content),
        ["first", "second"],
      );
      assert.equal(store.getSession("missing"), undefined);
    });

    test("a nested transaction joins the outer one; its throw undoes only its own calls", ({ open, raw }) => {
      const store = open();
      const other = raw();
      store.transaction((tx) => {
        tx.createSession({ id: "outer", source: "cli" });
        assert.throws(() =>
          tx.transaction((inner) => {
            inner.createSession({ id: "inner", source: "cli" });
            inner.appendMessage("inner", { role: "user", content: "undone" });
            throw new Error("inner fails");
          }),
        );
        tx.transaction((inner) => inner.appendMessage("outer", { role: "user", content: "nested" }));
        // The nested commit is the outer one's: still invisible outside.
        assert.equal(committed(other).messages, 0);
      });
      assert.deepEqual(committed(other), { sessions: 1, messages: 1, usage: 0 });
      assert.equal(store.getSession("inner"), undefined);
    });

    test("waits for a busy store with the write patience, then fails STORE_BUSY storing nothing", ({
      open,
      raw,
    }) => {
      const store = open({ patience: { writeMs: 150 } });
      store.createSession({ id: "s1", source: "cli" });
      const holder = raw();
      holder.exec("BEGIN IMMEDIATE");
      const started = Date.now();
      throwsCode(() => store.transaction((tx) => importSession(tx, "s2")), "STORE_BUSY");
      assert.ok(Date.now() - started >= 150, "the transaction gave up before its patience was spent");
      holder.exec("ROLLBACK");
      assert.equal(store.getSession("s2"), undefined);
      store.transaction((tx) => importSession(tx, "s2"));
      assert.equal(store.getSession("s2")?.endedAt, 1_600_000_060);
    });

    test("an async body is refused and what it did before its first await is rolled back", ({ open }) => {
      const store = open();
      throwsCode(
        () =>
          store.transaction(async (tx) => {
            tx.createSession({ id: "s1", source: "cli" });
            await Promise.resolve();
          }),
        "INVALID_INPUT",
      );
      assert.equal(store.getSession("s1"), undefined);
    });

    test("index maintenance, backups and close are refused inside, rolling the body back", ({ open }) => {
      const store = open();
      const refusals: Array<(tx: Store) => unknown> = [
        (tx) => tx.rebuildFts(),
        (tx) => tx.startFtsBackfill(),
        (tx) => tx.ftsBackfillStep(),
        (tx) => tx.optimizeFts(),
        (tx) => tx.retryDeferredFtsRecovery(),
        (tx) => tx.maintenanceTick(),
        (tx) => tx.close(),
      ];
      for (const call of refusals) {
        const error = throwsCode(
          () =>
            store.transaction((tx) => {
              tx.createSession({ id: "s1", source: "cli" });
              return call(tx);
            }),
          "INVALID_INPUT",
        );
        assert.match(error.message, /inside store\.transaction/);
        assert.equal(store.getSession("s1"), undefined);
      }
    });

    test("on a read-only store the body reads one snapshot and writes are refused", ({ open, raw }) => {
      open().createSession({ id: "s1", source: "cli" });
      const reader = open({ readOnly: true });
      const writer = raw();
      const insert = () =>
        writer.exec("INSERT INTO sessions (id, source, started_at) VALUES ('s2', 'cli', 0)");
      const seen = reader.transaction((tx) => {
        const before = tx.listSessions().length;
        // In WAL a writer commits beside the snapshot, which does not see it; in a rollback
        // journal the snapshot's shared lock keeps the writer from committing at all.
        if (reader.journalMode === "wal") insert();
        else throwsCode(insert, "SQLITE_BUSY");
        throwsCode(() => tx.createSession({ id: "s3", source: "cli" }), "STORE_READONLY");
        return [before, tx.listSessions().length];
      });
      assert.deepEqual(seen, [1, 1]);
      if (reader.journalMode !== "wal") insert();
      assert.equal(reader.listSessions().length, 2);
    });

    test("the body must be a function", ({ open }) => {
      const store = open();
      for (const bad of [undefined, null, 1, "fn", {}]) {
        throwsCode(() => store.transaction(bad as never), "INVALID_INPUT");
      }
    });
  });

  describe("endSession time", () => {
    test("endSession stores the given end time; the first end wins", ({ open }) => {
      const store = open();
      store.createSession({ id: "s1", source: "cli", startedAt: 1_600_000_000 });
      assert.equal(store.endSession("s1", "done", { at: 1_600_000_123.5 }).endedAt, 1_600_000_123.5);
      const again = store.endSession("s1", "again", { at: 1_700_000_000 });
      assert.equal(again.endedAt, 1_600_000_123.5);
      assert.equal(again.endReason, "done");
    });

    test("endSession without a time (or with null) ends the session now", ({ open }) => {
      const store = open();
      store.createSession({ id: "a", source: "cli" });
      store.createSession({ id: "b", source: "cli" });
      const before = Date.now() / 1000;
      const ends = [
        store.endSession("a", "done").endedAt,
        store.endSession("b", "done", { at: null as never }).endedAt,
      ];
      const after = Date.now() / 1000;
      for (const at of ends) assert.ok(at !== null && at >= before - 1 && at <= after + 1, `endedAt ${at}`);
    });

    test("a bad end time is INVALID_INPUT naming endSession.at and ends nothing", ({ open }) => {
      const store = open();
      store.createSession({ id: "s1", source: "cli" });
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, "yesterday", 1e13]) {
        const error = throwsCode(() => store.endSession("s1", "done", { at: bad as never }), "INVALID_INPUT");
        assert.equal((error as Error & { field?: string }).field, "endSession.at");
      }
      throwsCode(() => store.endSession("s1", "done", 5 as never), "INVALID_INPUT");
      assert.equal(store.getSession("s1")?.endedAt, null);
    });
  });
}
