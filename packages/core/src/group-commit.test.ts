/**
 * Group commit on the async store over the async test double (a real SQLite file answering on
 * later event-loop turns): concurrent appends share write transactions and each resolves with
 * what it would have alone; a member failing at the database fails only itself; calls on one
 * session keep their order; a lone append is one transaction, as without grouping.
 */
import { type AppendCall, appendCalls, storedMessages } from "@sessiondb/conformance";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { asyncDouble } from "../test/support/async-executor.js";
import { tempDir, testDriver } from "../test/support/driver.js";
import { type AsyncStore, createAsyncStore } from "./async-store.js";
import type { SqliteConnection } from "./driver.js";
import { SqliteError } from "./errors.js";
import type { AsyncStatements } from "./executor.js";

let dir: ReturnType<typeof tempDir>;
const opened: SqliteConnection[] = [];

/** A store on a new file, and the number of write transactions its executor ran so far. With
 * `lose`, a fault the double cannot produce on its own: a statement for which it answers true
 * fails with BUSY, as when the server rolled the transaction back under its body (sqld's
 * transaction timeout). */
async function openCounted(
  name: string,
  lose?: (sql: string, params: readonly unknown[]) => boolean,
): Promise<{ store: AsyncStore; writes(): number; conn: SqliteConnection }> {
  const conn = testDriver.open(dir.file(name), { readOnly: false });
  conn.exec("PRAGMA journal_mode = WAL");
  opened.push(conn);
  const executor = asyncDouble(conn);
  let writes = 0;
  const transaction = executor.transaction.bind(executor);
  const losing = (tx: AsyncStatements): AsyncStatements => ({
    execute(sql, params) {
      if (!lose?.(sql, params)) return tx.execute(sql, params);
      return Promise.reject(
        new SqliteError("BUSY", "the server rolled the transaction back", {
          extendedCode: "LIBSQL_TRANSACTION_TIMEOUT",
        }),
      );
    },
  });
  executor.transaction = (mode, fn, options) => {
    if (mode === "write") writes++;
    return transaction(mode, (tx) => fn(losing(tx)), options);
  };
  const store = await createAsyncStore(executor, { patience: { writeMs: 2_000 } });
  return { store, writes: () => writes, conn };
}

beforeEach(() => {
  dir = tempDir();
});

afterEach(() => {
  for (const conn of opened.splice(0).reverse()) conn.close();
  dir.cleanup();
});

describe("group commit on the async store", () => {
  it("50 concurrent appends to 50 sessions: the results of serial ones, in far fewer transactions", async () => {
    const sessions = Array.from({ length: 50 }, (_, i) => `s${i}`);
    const calls = sessions.map((session, i) => ({ session, content: `hello ${i}`, many: i % 3 === 0 }));
    const grouped = await openCounted("grouped.db");
    const serial = await openCounted("serial.db");
    for (const { store } of [grouped, serial])
      for (const id of sessions) await store.createSession({ id, source: "test" });
    const before = grouped.writes();
    const together = await appendCalls(grouped.store, calls, true);
    const groupedWrites = grouped.writes() - before;
    const serialBefore = serial.writes();
    const alone = await appendCalls(serial.store, calls, false);
    expect(serial.writes() - serialBefore).toBe(50);
    expect(together).toEqual(alone);
    expect(await storedMessages(grouped.store, sessions)).toEqual(
      await storedMessages(serial.store, sessions),
    );
    // The first call runs at once, alone; the 49 that arrived meanwhile share one transaction.
    expect(groupedWrites).toBeLessThanOrEqual(3);
    expect((await grouped.store.search("hello", { limit: 100 })).hits.length).toBe(67);
    await grouped.store.close();
    await serial.store.close();
  });

  it("a member that fails at the database fails only itself; the others commit with their own ids", async () => {
    const sessions = ["a", "b", "c", "gone"];
    const grouped = await openCounted("grouped.db");
    const serial = await openCounted("serial.db");
    for (const { store, conn } of [grouped, serial]) {
      for (const id of sessions) await store.createSession({ id, source: "test" });
      // A failure after the member's first statement (the counters moved): only a rollback of
      // the whole group undoes it.
      conn.exec(`CREATE TRIGGER poison BEFORE INSERT ON messages WHEN NEW.content = 'poison'
        BEGIN SELECT RAISE(ABORT, 'poisoned row'); END`);
      await store.deleteSession("gone");
    }
    const calls: AppendCall[] = [];
    for (let i = 0; i < 24; i++) {
      const session = sessions[i % 4] as string;
      calls.push({ session, content: i === 13 ? "poison" : `row ${i}`, many: i % 5 === 0 });
    }
    const together = await appendCalls(grouped.store, calls, true);
    const alone = await appendCalls(serial.store, calls, false);
    expect(together).toEqual(alone);
    expect(together[13]).toBe("SQLITE_CONSTRAINT");
    expect(together.filter((r) => r === "SESSION_NOT_FOUND").length).toBe(6);
    expect(await storedMessages(grouped.store, ["a", "b", "c"])).toEqual(
      await storedMessages(serial.store, ["a", "b", "c"]),
    );
    await grouped.store.close();
    await serial.store.close();
  });

  it("a group whose transaction is lost splits, and every call still gets its serial result", async () => {
    let sent = 0;
    // The first time the 30th call's row is sent, inside a group: lost (then never again).
    const losing = (sql: string, params: readonly unknown[]) =>
      sql.startsWith("INSERT INTO messages") && params[2] === "row 29" && sent++ === 0;
    const grouped = await openCounted("grouped.db", losing);
    const serial = await openCounted("serial.db");
    const sessions = Array.from({ length: 10 }, (_, i) => `l${i}`);
    for (const { store } of [grouped, serial])
      for (const id of sessions) await store.createSession({ id, source: "test" });
    const calls = Array.from({ length: 40 }, (_, i) => ({
      session: sessions[i % 10] as string,
      content: `row ${i}`,
      many: false,
    }));
    const together = await appendCalls(grouped.store, calls, true);
    // Lost the first time, then sent once more.
    expect(sent).toBe(2);
    expect(together).toEqual(await appendCalls(serial.store, calls, false));
    expect(await storedMessages(grouped.store, sessions)).toEqual(
      await storedMessages(serial.store, sessions),
    );
    await grouped.store.close();
    await serial.store.close();
  });

  it("calls on one session keep their call order; a lone append is one transaction", async () => {
    const { store, writes } = await openCounted("order.db");
    await store.createSession({ id: "x", source: "test" });
    await store.createSession({ id: "y", source: "test" });
    const calls: AppendCall[] = Array.from({ length: 40 }, (_, i) => ({
      session: i % 2 === 0 ? "x" : "y",
      content: `m${String(i).padStart(2, "0")}`,
      many: i % 7 === 0,
    }));
    await appendCalls(store, calls, true);
    for (const id of ["x", "y"]) {
      const expected = calls
        .filter((c) => c.session === id)
        .flatMap((c) => (c.many ? [`${c.content} a`, `${c.content} b`] : [c.content]));
      expect((await store.getMessages(id)).map((m) => m.content)).toEqual(expected);
    }
    const before = writes();
    await store.appendMessage("x", { role: "user", content: "alone" });
    expect(writes() - before).toBe(1);
    await store.close();
  });

  it("close() waits for appends queued behind a group and writes them; later calls are refused", async () => {
    const { store, conn } = await openCounted("close.db");
    await store.createSession({ id: "c", source: "test" });
    // More than one group holds: some still wait in the queue when close() is called.
    const calls = Array.from({ length: 700 }, (_, i) =>
      store.appendMessage("c", { role: "user", content: `c${i}` }),
    );
    await calls[0];
    const closing = store.close();
    const late = store.appendMessage("c", { role: "user", content: "late" });
    const ids = await Promise.all(calls);
    await closing;
    await expect(late).rejects.toMatchObject({ code: "STORE_CLOSED" });
    expect(new Set(ids).size).toBe(700);
    expect(conn.prepare("SELECT count(*) AS n FROM messages WHERE session_id = 'c'").get()).toEqual({
      n: 700,
    });
  });

  it("calls inside store.transaction are not grouped: they run on the transaction", async () => {
    const { store, writes } = await openCounted("tx.db");
    await store.createSession({ id: "t", source: "test" });
    const before = writes();
    await expect(
      store.transaction(async (tx) => {
        await Promise.all([1, 2, 3].map((n) => tx.appendMessage("t", { role: "user", content: `in ${n}` })));
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(writes() - before).toBe(1);
    expect(await store.getMessages("t")).toEqual([]);
    await store.close();
  });
});
