/**
 * The async Store over the async test double (a real better-sqlite3 connection answering on later
 * event-loop turns): the open path creates the schema and builds the index through the same
 * operations as the sync store, under a real lock-file admission; transactions commit, roll back
 * and nest; the sync store reads everything it wrote.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { asyncDouble } from "../test/support/async-executor.js";
import { tempDir, testDriver } from "../test/support/driver.js";
import { type AsyncStore, connectWithOpenPatience, createAsyncStore } from "./async-store.js";
import type { SqliteConnection } from "./driver.js";
import { InvalidInputError, SessionDbError, SqliteError, StoreBusyError } from "./errors.js";
import type { AsyncStatements } from "./executor.js";
import { acquireAdmission, lockFileAdmission } from "./locks/admission.js";
import { createStore } from "./store.js";

let dir: ReturnType<typeof tempDir>;
const opened: Array<{ close(): unknown }> = [];

function connect(path: string): SqliteConnection {
  const conn = testDriver.open(path, { readOnly: false });
  conn.exec("PRAGMA busy_timeout = 0");
  conn.exec("PRAGMA foreign_keys = ON");
  opened.push(conn);
  return conn;
}

async function openAsync(path = dir.file("state.db")): Promise<AsyncStore> {
  const conn = connect(path);
  conn.exec("PRAGMA journal_mode = WAL");
  return createAsyncStore(asyncDouble(conn), {
    admission: lockFileAdmission(testDriver, path),
    patience: { writeMs: 2_000 },
  });
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SessionDbError);
  return (error as SessionDbError).code;
}

beforeEach(() => {
  dir = tempDir();
});

afterEach(() => {
  for (const handle of opened.splice(0).reverse()) handle.close();
  dir.cleanup();
});

describe("createAsyncStore", () => {
  it("creates the schema and builds the index at open; the sync store opens it on the fast path", async () => {
    const store = await openAsync();
    expect(store.schemaWarnings).toEqual([]);
    expect(store.journalMode).toBe("wal");
    expect(await store.ftsStatus()).toEqual({ state: "ready", trigram: true });
    const session = await store.createSession({ id: "s1", source: "cli" });
    const [id] = await store.appendMessages("s1", [{ role: "user", content: "deploy the gateway" }]);
    expect(await store.appendMessage("s1", { role: "assistant", content: "done" })).toBe((id as number) + 1);
    expect((await store.search("gateway")).hits.map((h) => h.messageId)).toEqual([id]);
    expect((await store.checkIntegrity()).ok).toBe(true);
    expect((await store.stats()).messages.total).toBe(2);

    const sync = createStore(testDriver, dir.file("state.db"));
    opened.push(sync);
    expect(sync.getSession("s1")).toEqual({
      ...session,
      messageCount: 2,
      lastActivityAt: expect.any(Number),
    });
    expect(sync.search("gateway")).toEqual(await store.search("gateway"));
    expect(sync.ftsStatus().state).toBe("ready");
  });

  it("transaction(fn): one atomic unit that commits, rolls back whole, and nests as savepoints", async () => {
    const store = await openAsync();
    const result = await store.transaction(async (tx) => {
      await tx.createSession({ id: "imp", source: "import", startedAt: 1_600_000_000 });
      await tx.appendMessages("imp", [{ role: "user", content: "one" }]);
      // A nested transaction that throws undoes only its own calls.
      await tx
        .transaction(async (inner) => {
          await inner.appendMessage("imp", { role: "user", content: "undone" });
          throw new Error("inner");
        })
        .catch(() => undefined);
      await tx.endSession("imp", "imported", { at: 1_600_000_060 });
      return "committed";
    });
    expect(result).toBe("committed");
    expect((await store.getMessages("imp")).map((m) => m.content)).toEqual(["one"]);
    expect((await store.getSession("imp"))?.endedAt).toBe(1_600_000_060);

    await expect(
      store.transaction(async (tx) => {
        await tx.createSession({ id: "gone", source: "import" });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await store.getSession("gone")).toBeUndefined();
    expect(
      await codeOf(
        store.transaction(async (tx) => {
          await tx.rebuildFts();
        }),
      ),
    ).toBe("INVALID_INPUT");
  });

  it("rebuildFts waits for the admission another store holds and says who holds it", async () => {
    const store = await openAsync();
    const held = acquireAdmission(testDriver, dir.file("state.db"), { timeoutMs: 0 });
    expect(held.admitted).toBe(true);
    const blocked = await store.rebuildFts({ timeoutMs: 250 });
    expect(blocked).toMatchObject({ rebuilt: false, blocked: "held" });
    expect(blocked.reason).toMatch(/held by another process/);
    if (held.admitted) held.release();
    expect(await store.rebuildFts({ timeoutMs: 0 })).toEqual({ rebuilt: true });
  });

  it("never rebuilds a table while the engine enforces foreign keys: the store opens with a warning and loses nothing", async () => {
    const path = dir.file("state.db");
    const store = await openAsync(path);
    await store.createSession({ id: "s", source: "cli" });
    await store.appendMessage("s", { role: "user", content: "keep me" });
    await store.close();
    // A `sessions` whose primary key differs from the definition: the heal would drop the old
    // table, and with enforcement on that cascades to every message.
    const conn = connect(path);
    conn.exec("PRAGMA foreign_keys = OFF");
    conn.exec(`CREATE TABLE sessions_old AS SELECT * FROM sessions;
               DROP TABLE sessions;
               CREATE TABLE sessions (id TEXT, source TEXT NOT NULL, started_at REAL NOT NULL);
               INSERT INTO sessions (id, source, started_at) SELECT id, source, started_at FROM sessions_old;
               DROP TABLE sessions_old;
               DELETE FROM state_meta WHERE key = 'schema_fingerprint';`);
    conn.exec("PRAGMA foreign_keys = ON");
    // An engine that ignores `foreignKeys: "off"`.
    const double = asyncDouble(connect(path));
    const ignoring = {
      ...double,
      transaction: <T>(mode: "write" | "read", fn: (tx: AsyncStatements) => Promise<T>) =>
        double.transaction(mode, fn),
    };
    const reopened = await createAsyncStore(ignoring, { admission: lockFileAdmission(testDriver, path) });
    expect(reopened.schemaWarnings.join("\n")).toMatch(
      /sessions: its primary key differs .* foreign keys are enforced/,
    );
    expect(conn.prepare("SELECT count(*) AS n FROM messages").get()).toEqual({ n: 1 });
    await reopened.close();
    // An engine that switches them off heals it, every message kept.
    const healed = await openAsync(path);
    expect(healed.schemaWarnings).toEqual([]);
    expect((await healed.getMessages("s")).map((m) => m.content)).toEqual(["keep me"]);
  });

  it("refuses a missing executor and bad options, and use after close", async () => {
    expect(await codeOf(createAsyncStore(null as never))).toBe("INVALID_INPUT");
    const conn = connect(dir.file("state.db"));
    expect(await codeOf(createAsyncStore(asyncDouble(conn), { patience: { writeMs: -1 } }))).toBe(
      "INVALID_INPUT",
    );
    const store = await openAsync();
    await store.close();
    await store.close();
    expect(await codeOf(store.getSession("x"))).toBe("STORE_CLOSED");
  });
});

describe("a transaction the engine loses after its body started", () => {
  /** The double, with a fault it cannot produce on its own: a server that rolls the transaction
   * back under the body (sqld's transaction timeout) answers its next statement with BUSY. */
  async function openLosing(): Promise<{ store: AsyncStore; loseNext: () => void }> {
    const path = dir.file("state.db");
    const conn = connect(path);
    conn.exec("PRAGMA journal_mode = WAL");
    const double = asyncDouble(conn);
    let lose = false;
    const executor = {
      ...double,
      transaction<T>(mode: "write" | "read", fn: (tx: AsyncStatements) => Promise<T>) {
        return double.transaction(mode, (tx) =>
          fn({
            async execute(sql, params) {
              if (lose) {
                lose = false;
                throw new SqliteError("BUSY", "the server rolled the transaction back", {
                  extendedCode: "LIBSQL_TRANSACTION_TIMEOUT",
                });
              }
              return tx.execute(sql, params);
            },
          }),
        );
      },
    };
    const store = await createAsyncStore(executor, { patience: { writeMs: 2_000 } });
    return { store, loseNext: () => (lose = true) };
  }

  it("is not run again: SQLITE_ABORT saying what is known, nothing of it stored", async () => {
    const { store, loseNext } = await openLosing();
    await store.createSession({ id: "s1", source: "cli" });
    let runs = 0;
    const error = await store
      .transaction(async (tx) => {
        runs++;
        await tx.appendMessage("s1", { role: "user", content: "inside" });
        loseNext();
        await tx.appendMessage("s1", { role: "user", content: "lost" });
      })
      .then(
        () => undefined,
        (e: unknown) => e as SqliteError,
      );
    expect(runs).toBe(1);
    expect(error).toBeInstanceOf(SqliteError);
    expect(error?.resultCode).toBe("ABORT");
    expect(error?.message).toMatch(/after its function had started/);
    expect(error?.message).toMatch(/not run again/);
    expect((error?.cause as SqliteError | undefined)?.extendedCode).toBe("LIBSQL_TRANSACTION_TIMEOUT");
    expect(await store.messageCount("s1")).toBe(0);
  });

  it("a busy lock before the body starts is still waited out, the body running once", async () => {
    const { store, loseNext } = await openLosing();
    await store.createSession({ id: "s1", source: "cli" });
    let runs = 0;
    loseNext(); // the transaction's first statement: the lock it waits for
    await store.transaction(async (tx) => {
      runs++;
      await tx.appendMessage("s1", { role: "user", content: "once" });
    });
    expect(runs).toBe(1);
    expect(await store.messageCount("s1")).toBe(1);
  });
});

describe("connectWithOpenPatience", () => {
  const unreachable = () =>
    new SqliteError("BUSY", "the server is unreachable", { extendedCode: "TEST_UNREACHABLE" });

  it("tries a BUSY connection step again within the open patience and answers once it connects", async () => {
    let calls = 0;
    const started = Date.now();
    const answer = await connectWithOpenPatience({ patience: { openMs: 10_000 } }, async () => {
      calls++;
      if (calls < 2) throw unreachable();
      return "connected";
    });
    expect(answer).toBe("connected");
    expect(calls).toBe(2);
    // One open-jitter sleep (250–1000 ms) between the two attempts.
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
  });

  it("ends in StoreBusyError naming the last failure once the open patience is spent", async () => {
    let calls = 0;
    const started = Date.now();
    const error = await connectWithOpenPatience({ patience: { openMs: 600 } }, async () => {
      calls++;
      throw unreachable();
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreBusyError);
    expect((error as StoreBusyError).cause).toBeInstanceOf(SqliteError);
    expect((error as Error).message).toContain("the server is unreachable");
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(590);
  });

  it("rejects any other failure at once, and bad options before connecting", async () => {
    let calls = 0;
    const refused = new SqliteError("AUTH", "bad token");
    await expect(
      connectWithOpenPatience({ patience: { openMs: 10_000 } }, async () => {
        calls++;
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
    await expect(
      connectWithOpenPatience({ patience: { openMs: -1 } }, async () => {
        calls++;
        return "connected";
      }),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(calls).toBe(1);
  });
});
