/**
 * The operations run the same on both runners: the sync runner under the Store, and the async
 * runner over an asynchronous executor (here the test double over a real better-sqlite3
 * connection, answering on later event-loop turns).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { asyncDouble } from "../../test/support/async-executor.js";
import { tempDir, testDriver } from "../../test/support/driver.js";
import type { SqliteConnection } from "../driver.js";
import { SessionDbError } from "../errors.js";
import { startBackfillTx } from "../fts/backfill.js";
import { type BackfillProgress, backfillLoop } from "../fts/backfill-loop.js";
import { failOpen } from "../fts/corruption.js";
import { runSearch } from "../fts/search.js";
import { write } from "../policy/calls.js";
import type { StepMemory } from "../policy/state.js";
import { createPolicy } from "../policy/state.js";
import * as messages from "../store/messages.js";
import * as sessions from "../store/sessions.js";
import * as usage from "../store/usage.js";
import { createStore, type Store } from "../store.js";
import { get, type Op } from "./effects.js";
import { type AsyncEnvironment, runAsync } from "./run-async.js";

let dir: ReturnType<typeof tempDir>;
let store: Store;
let conn: SqliteConnection;
let double: ReturnType<typeof asyncDouble>;
let env: AsyncEnvironment;
const opened: Array<{ close(): void }> = [];

beforeEach(() => {
  dir = tempDir();
  store = createStore(testDriver, dir.file("state.db"));
  conn = testDriver.open(dir.file("state.db"), { readOnly: false });
  conn.exec("PRAGMA busy_timeout = 0; PRAGMA foreign_keys = ON");
  opened.push(store, conn);
  double = asyncDouble(conn);
  env = asyncEnv(2_000);
});

function asyncEnv(writeMs: number): AsyncEnvironment {
  const patience = { openMs: writeMs, writeMs, appendMs: writeMs };
  const policy = createPolicy(
    {
      readOnly: false,
      patience,
      admissionTimeoutMs: 0,
      repairFtsOnOpen: true,
      failOpen,
      groupsWrites: false,
    },
    {},
  );
  return { executor: double, policy, now: Date.now };
}

afterEach(() => {
  for (const handle of opened.splice(0).reverse()) handle.close();
  dir.cleanup();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SessionDbError);
  return (error as SessionDbError).code;
}

describe("the async runner", () => {
  it("runs the session, message and usage operations; the sync store reads the same rows", async () => {
    const created = await runAsync(
      env,
      sessions.createSession({ id: "s1", source: "cli", startedAt: 1_600_000_000 }),
    );
    expect(created).toEqual(store.getSession("s1"));
    const ids = await runAsync(
      env,
      messages.appendMessages(
        "s1",
        [
          { role: "user", content: "hello\u0000world" },
          { role: "assistant", content: [{ type: "text", text: "hi" }], toolCalls: [{ id: "c1" }] },
        ],
        1_000,
      ),
    );
    expect(ids).toEqual(store.getMessages("s1").map((m) => m.id));
    await runAsync(env, usage.recordUsage("s1", { model: "m", inputTokens: 5, costUsd: 0.25 }));
    await runAsync(env, sessions.updateSession("s1", { title: "t", pinned: true }));
    const ended = await runAsync(env, sessions.endSession("s1", "done", { at: 1_600_000_060 }));
    expect(ended.endedAt).toBe(1_600_000_060);
    expect(await runAsync(env, sessions.getSession("s1"))).toEqual(store.getSession("s1"));
    expect(await runAsync(env, messages.getMessages("s1"))).toEqual(store.getMessages("s1"));
    expect(await runAsync(env, usage.getUsage("s1"))).toEqual(store.getUsage("s1"));
    expect(await runAsync(env, sessions.listSessions())).toEqual(store.listSessions());
    expect(await runAsync(env, messages.messageCount())).toBe(2);
    expect(await runAsync(env, sessions.deleteSession("s1"))).toBe(2);
    expect(store.getSession("s1")).toBeUndefined();
  });

  it("refuses bad input before its first statement, and rolls a failed write back", async () => {
    await runAsync(env, sessions.createSession({ id: "s1", source: "cli" }));
    const before = double.statements;
    expect(
      await codeOf(runAsync(env, messages.appendMessages("s1", [{ role: "nobody" } as never], 1_000))),
    ).toBe("INVALID_INPUT");
    expect(await codeOf(runAsync(env, sessions.endSession("s1", "x", { at: Number.NaN })))).toBe(
      "INVALID_INPUT",
    );
    expect(double.statements).toBe(before);
    // The counter update runs, then the missing parent is found: the whole write is undone.
    expect(
      await codeOf(
        runAsync(env, sessions.createSession({ id: "c", source: "cli", parentSessionId: "nope" })),
      ),
    ).toBe("SESSION_NOT_FOUND");
    expect(
      await codeOf(
        runAsync(env, messages.appendMessages("missing", [{ role: "user", content: "x" }], 1_000)),
      ),
    ).toBe("SESSION_NOT_FOUND");
    expect(store.messageCount()).toBe(0);
    expect(store.listSessions().map((s) => s.id)).toEqual(["s1"]);
  });

  it("concurrent calls do not interleave inside each other's transactions", async () => {
    await runAsync(env, sessions.createSession({ id: "a", source: "cli" }));
    await runAsync(env, sessions.createSession({ id: "b", source: "cli" }));
    const batch = (session: string, n: number) =>
      runAsync(
        env,
        messages.appendMessages(
          session,
          [1, 2, 3].map((k) => ({ role: "user" as const, content: `${session}${n}.${k}` })),
          1_000,
        ),
      );
    const results = await Promise.all(Array.from({ length: 20 }, (_, n) => batch(n % 2 ? "a" : "b", n)));
    for (const ids of results) expect(ids).toEqual([ids[0], (ids[0] as number) + 1, (ids[0] as number) + 2]);
    expect(store.getSession("a")?.messageCount).toBe(30);
    expect(store.getSession("b")?.messageCount).toBe(30);
    expect(new Set(results.flat()).size).toBe(60);
  });

  it("waits for a busy store with patience, retrying the whole body, and gives up as STORE_BUSY", async () => {
    await runAsync(env, sessions.createSession({ id: "s1", source: "cli" }));
    const holder = testDriver.open(dir.file("state.db"), { readOnly: false });
    opened.push(holder);
    holder.exec("BEGIN IMMEDIATE");
    const started = Date.now();
    const pending = runAsync(
      env,
      messages.appendMessages("s1", [{ role: "user", content: "waited" }], 5_000),
    );
    setTimeout(() => holder.exec("ROLLBACK"), 300);
    const [id] = await pending;
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(store.getMessages("s1").map((m) => [m.id, m.content])).toEqual([[id, "waited"]]);

    holder.exec("BEGIN IMMEDIATE");
    const busy = asyncEnv(200);
    expect(await codeOf(runAsync(busy, sessions.endSession("s1", "x")))).toBe("STORE_BUSY");
    holder.exec("ROLLBACK");
    expect(store.getSession("s1")?.endedAt).toBeNull();
  });

  it("routes and runs searches as the sync store does, on every route", async () => {
    store.createSession({ id: "s1", source: "cli" });
    store.appendMessages("s1", [
      { role: "user", content: "deploy the gateway tonight" },
      { role: "assistant", content: "the deployment of gateway-7 finished; 部署完成" },
      { role: "tool", content: "exit\u0000code 0 after deploying" },
    ]);
    const cases: Array<[string, Parameters<typeof store.search>[1]]> = [
      ["deploy", undefined],
      ['"the gateway"', undefined],
      ["deploy*", { sort: "oldest" }],
      ["ploy", { substring: true }],
      ["部署", undefined],
      ["gateway -tonight", { roles: ["assistant"] }],
      ["exit\u0000code", { substring: true }],
    ];
    for (const [query, options] of cases) {
      const expected = store.search(query, options);
      expect(await runAsync(env, runSearch(query, options ?? undefined, false))).toEqual(expected);
    }
    const routes = new Set(cases.map(([query, options]) => store.search(query, options).route));
    expect(routes.size).toBeGreaterThan(1);
  });

  it("runs the chunked backfill loop to completion; the sync store finds the index whole", async () => {
    store.createSession({ id: "s1", source: "cli" });
    for (let i = 0; i < 5; i++) {
      store.appendMessages(
        "s1",
        Array.from({ length: 60 }, (_, k) => ({
          role: "user" as const,
          content: `row ${i * 60 + k} gateway`,
        })),
      );
    }
    expect(await runAsync(env, write(startBackfillTx))).toBe(true);
    expect(store.ftsStatus().state).toBe("backfilling");
    const memory: StepMemory = {};
    const progress: BackfillProgress[] = [];
    await runAsync(env, backfillLoop({ chunkIds: 50, memory, onProgress: (p) => progress.push(p) }));
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.at(-1)).toEqual({ indexed: 300, total: 300, done: true });
    expect(store.ftsStatus().state).toBe("ready");
    expect(store.checkIntegrity().ok).toBe(true);
    expect(store.search("gateway", { limit: 1000 }).hits.length).toBe(300);
  });

  it("throws an executor's error into the operation, whose try/catch handles it", async () => {
    function* probe(): Op<string> {
      try {
        yield* get("SELECT * FROM no_such_table");
        return "no error";
      } catch (error) {
        return (error as SessionDbError).code;
      }
    }
    expect(await runAsync(env, probe())).toBe("SQLITE_ERROR");
  });
});
