/**
 * Conformance: the bad-input sweep. Every public Store method and every createStore option gets
 * the wrong values a user actually sends — wrong types, null where a value is required, NaN,
 * ±Infinity, huge numbers and strings, arrays where objects go, Symbols, BigInt, objects whose
 * getters throw — and must answer with a typed error naming the field, while nothing stored
 * changes (rows and PRAGMA data_version seen from another connection) and no file is created.
 */
import { readdirSync } from "node:fs";
import { createStore, LIMITS, SqliteError, type StoreOptions } from "@sessiondb/core";
import type { OpenFlags, SqliteConnection, SqliteDriver, SqlValue } from "@sessiondb/core/driver";
import {
  assert,
  type ConformanceStore,
  type ConformanceTarget,
  type Fixture,
  fixtureTest,
  throwsCode,
} from "./harness.js";

const { MAX_SEARCH_FILTER_VALUES, MAX_SESSION_ID_CHARS } = LIMITS;

/** `driver`, refusing every statement given a string longer than `maxChars` as SQLite does past
 * its value limit (SQLITE_TOOBIG), counting the refusals. */
function shortValueDriver(
  driver: SqliteDriver,
  maxChars: number,
): { driver: SqliteDriver; refusals: number } {
  const wrapped = {
    refusals: 0,
    driver: {
      name: driver.name,
      open(path: string, flags: OpenFlags): SqliteConnection {
        const conn = driver.open(path, flags);
        return {
          exec: (sql) => conn.exec(sql),
          prepare: (sql) => {
            const statement = conn.prepare(sql);
            const checked =
              <R>(run: (...params: SqlValue[]) => R) =>
              (...params: SqlValue[]): R => {
                if (params.some((p) => typeof p === "string" && p.length > maxChars)) {
                  wrapped.refusals++;
                  throw new SqliteError("TOOBIG", "string or blob too big");
                }
                return run(...params);
              };
            return {
              run: checked((...p) => statement.run(...p)),
              get: checked((...p) => statement.get(...p)),
              all: checked((...p) => statement.all(...p)),
            };
          },
          close: () => conn.close(),
        };
      },
    },
  };
  return wrapped;
}

/** One case: a label, the call, and the field the error must name (prefix match). */
interface Row {
  label: string;
  call: () => unknown;
  field: string;
}

/** An object whose `key` getter throws. */
function throwingGetter(key: string): object {
  return Object.defineProperty({}, key, {
    enumerable: true,
    get() {
      throw new Error(`getter ${key} exploded`);
    },
  });
}

/** A proxy whose every property read throws. */
const trap = () =>
  new Proxy(
    {},
    {
      get() {
        throw new Error("trap exploded");
      },
    },
  );

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

const HUGE = "x".repeat(1_000_000);

/** Values that are never a number an option accepts. */
const NOT_NUMBERS: unknown[] = [Number.NaN, "5", true, [], {}, Symbol("n"), 10n, () => 5, revoked()];
/** Numbers outside every integer option's range, or not integers. */
const BAD_INTEGERS: unknown[] = [
  ...NOT_NUMBERS,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  1e300,
  2 ** 53,
  -1,
  0.5,
];
/** Not a wait in milliseconds (finite, 0 to one day). */
const BAD_WAITS: unknown[] = [
  ...NOT_NUMBERS,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  1e300,
  -1,
  86_400_001,
];
const BAD_FLAGS: unknown[] = ["yes", "true", 1, 0, Number.NaN, [], {}, Symbol("b"), 10n];
const BAD_CHOICES: unknown[] = ["bogus", "", 1, [], {}, Symbol("c"), 10n];
/** Not an options object: what arrives when arguments are shifted or mistyped. */
const BAD_BAGS: unknown[] = [42, "options", true, [], [{}], Symbol("o"), 10n, () => ({}), Number.NaN];
/** Objects whose reading throws. */
const HOSTILE_BAGS = (key: string): unknown[] => [throwingGetter(key), trap(), revoked()];
const BAD_IDS: unknown[] = [
  null,
  5,
  "",
  "a\u0000b",
  "x".repeat(MAX_SESSION_ID_CHARS + 1),
  HUGE,
  "\uD800",
  {},
  [],
  ["s1"],
  Symbol("id"),
  10n,
];

const show = (value: unknown): string => {
  if (typeof value === "string")
    return value.length > 20 ? `"${value.slice(0, 8)}…"(${value.length})` : JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "function") return "fn";
  try {
    return Array.isArray(value)
      ? `[${value.length}]`
      : typeof value === "object" && value
        ? "{…}"
        : String(value);
  } catch {
    return "revoked proxy";
  }
};

/** Rows for each bad `values` of option `key` of `call(options)`. */
function optionRows(
  owner: string,
  key: string,
  values: unknown[],
  call: (options: unknown) => unknown,
): Row[] {
  return values.map((value) => ({
    label: `${owner}({ ${key}: ${show(value)} })`,
    call: () => call({ [key]: value }),
    field: `${owner}.${key}`,
  }));
}

/** Rows for bad options objects of `call(options)`. */
function bagRows(owner: string, firstKey: string, call: (options: unknown) => unknown): Row[] {
  return [...BAD_BAGS, ...HOSTILE_BAGS(firstKey)].map((value) => ({
    label: `${owner}(${show(value)})`,
    call: () => call(value),
    field: owner,
  }));
}

/** Rows for bad ids passed as the first argument. */
function idRows(owner: string, call: (id: unknown) => unknown, field: string): Row[] {
  return BAD_IDS.map((value) => ({ label: `${owner}(${show(value)}, …)`, call: () => call(value), field }));
}

/** Everything stored, as another connection sees it. `data_version` moves whenever another
 * connection commits, so a rejected call that committed anything at all is caught. */
function snapshot(conn: SqliteConnection): unknown {
  const rows = (sql: string) => conn.prepare(sql).all();
  return {
    dataVersion: rows("PRAGMA data_version"),
    sessions: rows("SELECT * FROM sessions ORDER BY id"),
    messages: rows("SELECT * FROM messages ORDER BY id"),
    usage: rows("SELECT * FROM session_model_usage ORDER BY session_id, model"),
    meta: rows("SELECT * FROM state_meta ORDER BY key"),
  };
}

/** A small store: two sessions, three messages, one usage row. */
async function seed(store: ConformanceStore): Promise<void> {
  await store.createSession({ id: "s1", source: "cli", title: "first", startedAt: 100 });
  await store.createSession({ id: "s2", source: "gateway", startedAt: 200 });
  await store.appendMessages("s1", [
    { role: "user", content: "where is the flamingo", timestamp: 101 },
    { role: "assistant", content: "the flamingo is in the garden", timestamp: 102 },
  ]);
  await store.appendMessage("s2", { role: "user", content: "hello", timestamp: 201 });
  await store.recordUsage("s1", { model: "m", inputTokens: 10, costUsd: 0.5 });
}

/** Every row throws INVALID_INPUT naming its field, and nothing stored changes. All rows run;
 * the failures are reported together, each with its row's label. */
async function sweep(f: Fixture, rows: Row[]): Promise<void> {
  const watcher = f.raw();
  const files = () => readdirSync(f.file(".")).sort();
  // The first read creates the watcher's -shm/-wal files; list the directory after it.
  snapshot(watcher);
  const dir = files();
  const failures: string[] = [];
  for (const row of rows) {
    const before = snapshot(watcher);
    try {
      const error = (await throwsCode(() => {
        const result = row.call();
        // A call that should have been refused but opened a store: close it before failing.
        if (result && typeof (result as { close?: unknown }).close === "function")
          (result as { close(): void }).close();
        return result;
      }, "INVALID_INPUT")) as Error & { field?: string };
      assert.ok(
        error.field?.startsWith(row.field),
        `the error names ${error.field}, expected ${row.field}: ${error.message}`,
      );
      assert.deepEqual(snapshot(watcher), before, "stored data changed");
    } catch (error) {
      failures.push(`${row.label}: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  assert.deepEqual(failures, [], `${failures.length} of ${rows.length} rows failed`);
  assert.deepEqual(files(), dir, "a refused call created a file");
}

function storeRows(store: ConformanceStore): Row[] {
  const message = { role: "user", content: "x" } as const;
  return [
    // sessions
    // createSession takes a required input object, not options: null is refused.
    ...[null, 42, "s1", Symbol("i"), 10n].map((v) => ({
      label: `createSession(${show(v)})`,
      call: () => store.createSession(v as never),
      field: "input",
    })),
    ...idRows("createSession", (v) => store.createSession({ id: v, source: "cli" } as never), "id"),
    ...[5, "", HUGE, {}, [], Symbol("s")].map((v) => ({
      label: `createSession({ source: ${show(v)} })`,
      call: () => store.createSession({ id: "new", source: v } as never),
      field: "source",
    })),
    ...[Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, "100", 10n, {}].map((v) => ({
      label: `createSession({ startedAt: ${show(v)} })`,
      call: () => store.createSession({ id: "new", source: "cli", startedAt: v } as never),
      field: "startedAt",
    })),
    ...[[], "meta", 5].map((v) => ({
      label: `createSession({ metadata: ${show(v)} })`,
      call: () => store.createSession({ id: "new", source: "cli", metadata: v } as never),
      field: "metadata",
    })),
    ...idRows("getSession", (v) => store.getSession(v as never), "id"),
    ...bagRows("listSessions", "limit", (v) => store.listSessions(v as never)),
    ...optionRows("listSessions", "limit", BAD_INTEGERS, (o) => store.listSessions(o as never)),
    ...optionRows("listSessions", "offset", BAD_INTEGERS, (o) => store.listSessions(o as never)),
    ...optionRows("listSessions", "source", [5, HUGE, [], {}, Symbol("s")], (o) =>
      store.listSessions(o as never),
    ),
    ...optionRows("listSessions", "orderBy", BAD_CHOICES, (o) => store.listSessions(o as never)),
    ...optionRows("listSessions", "includeArchived", BAD_FLAGS, (o) => store.listSessions(o as never)),
    ...idRows("updateSession", (v) => store.updateSession(v as never, { title: "t" }), "id"),
    ...[null, 42, "patch", Symbol("p")].map((v) => ({
      label: `updateSession("s1", ${show(v)})`,
      call: () => store.updateSession("s1", v as never),
      field: "patch",
    })),
    ...["yes", 1, Number.NaN].map((v) => ({
      label: `updateSession("s1", { archived: ${show(v)} })`,
      call: () => store.updateSession("s1", { pinned: true, archived: v } as never),
      field: "archived",
    })),
    ...idRows("endSession", (v) => store.endSession(v as never, "done"), "id"),
    ...[null, 5, "", HUGE, {}].map((v) => ({
      label: `endSession("s1", ${show(v)})`,
      call: () => store.endSession("s1", v as never),
      field: "reason",
    })),
    ...idRows("deleteSession", (v) => store.deleteSession(v as never), "id"),
    // messages
    ...idRows("appendMessage", (v) => store.appendMessage(v as never, message), "sessionId"),
    ...[null, 42, "hi", [], Symbol("m")].map((v) => ({
      label: `appendMessage("s1", ${show(v)})`,
      call: () => store.appendMessage("s1", v as never),
      field: "messages[0]",
    })),
    ...[
      { role: "robot" },
      { role: "user", content: 42 },
      { role: "user", content: "x", timestamp: Number.NaN },
      { role: "user", content: "x", timestamp: Number.POSITIVE_INFINITY },
      { role: "user", content: "x", tokenCount: -1 },
      { role: "user", content: "x", tokenCount: 1e300 },
      { role: "user", content: "x", tokenCount: 10n },
      { role: "user", content: "x", toolCalls: {} },
      { role: "user", content: "x", metadata: [] },
    ].map((v) => ({
      label: `appendMessages("s1", [ok, ${JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}n` : x))}])`,
      // The first message is valid: one bad message must store neither.
      call: () => store.appendMessages("s1", [message, v as never]),
      field: "messages[1]",
    })),
    {
      // A hole in the list is a missing message, named by its index, not a crash.
      label: 'appendMessages("s1", [ok, <hole>])',
      // biome-ignore lint/suspicious/noSparseArray: the hole is the input under test
      call: () => store.appendMessages("s1", [message, ,] as never),
      field: "messages[1]",
    },
    ...[null, 42, {}, "messages"].map((v) => ({
      label: `appendMessages("s1", ${show(v)})`,
      call: () => store.appendMessages("s1", v as never),
      field: "messages",
    })),
    ...idRows("getMessages", (v) => store.getMessages(v as never), "sessionId"),
    ...bagRows("getMessages", "afterId", (v) => store.getMessages("s1", v as never)),
    ...optionRows("getMessages", "afterId", BAD_INTEGERS, (o) => store.getMessages("s1", o as never)),
    ...optionRows("getMessages", "limit", BAD_INTEGERS, (o) => store.getMessages("s1", o as never)),
    ...optionRows("getMessages", "last", BAD_INTEGERS, (o) => store.getMessages("s1", o as never)),
    ...optionRows("getMessages", "beforeId", [...BAD_INTEGERS, 0], (o) =>
      store.getMessages("s1", o as never),
    ),
    {
      label: 'getMessages("s1", { limit: 1, last: 1 })',
      call: () => store.getMessages("s1", { limit: 1, last: 1 }),
      field: "getMessages.last",
    },
    ...optionRows("getMessages", "includeInactive", BAD_FLAGS, (o) => store.getMessages("s1", o as never)),
    // messageCount(undefined) counts the whole store; any other non-id is refused.
    ...idRows("messageCount", (v) => store.messageCount(v as never), "sessionId"),
    // usage
    ...idRows("recordUsage", (v) => store.recordUsage(v as never, { model: "m" }), "sessionId"),
    ...[null, 42, "usage"].map((v) => ({
      label: `recordUsage("s1", ${show(v)})`,
      call: () => store.recordUsage("s1", v as never),
      field: "usage",
    })),
    ...(
      [
        ["model", ""],
        ["model", 5],
        ["inputTokens", -1],
        ["inputTokens", 0.5],
        ["inputTokens", Number.NaN],
        ["inputTokens", 1e300],
        ["inputTokens", 10n],
        ["costUsd", -1],
        ["costUsd", Number.POSITIVE_INFINITY],
        ["costUsd", "1"],
      ] as const
    ).map(([key, v]) => ({
      label: `recordUsage("s1", { ${key}: ${show(v)} })`,
      call: () => store.recordUsage("s1", { model: "m", [key]: v } as never),
      field: `usage.${key}`,
    })),
    ...idRows("getUsage", (v) => store.getUsage(v as never), "sessionId"),
    // search
    ...[null, 5, {}, [], Symbol("q"), 10n].map((v) => ({
      label: `search(${show(v)})`,
      call: () => store.search(v as never),
      field: "search.query",
    })),
    ...bagRows("search", "limit", (v) => store.search("flamingo", v as never)),
    ...optionRows("search", "limit", BAD_INTEGERS, (o) => store.search("flamingo", o as never)),
    ...optionRows("search", "offset", BAD_INTEGERS, (o) => store.search("flamingo", o as never)),
    ...optionRows(
      "search",
      "since",
      [...NOT_NUMBERS, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
      (o) => store.search("flamingo", o as never),
    ),
    ...optionRows(
      "search",
      "until",
      [...NOT_NUMBERS, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
      (o) => store.search("flamingo", o as never),
    ),
    ...optionRows(
      "search",
      "roles",
      // biome-ignore lint/suspicious/noSparseArray: a hole is what a careless caller sends
      ["user", [], ["robot"], [1], [, "user"], { 0: "user", length: 1 }, [Symbol("r")], Symbol("r")],
      (o) => store.search("flamingo", o as never),
    ),
    ...optionRows(
      "search",
      "sources",
      [
        "cli",
        [],
        [5],
        ["x".repeat(201)],
        Array.from({ length: MAX_SEARCH_FILTER_VALUES + 1 }, (_, i) => `src-${i}`),
        // The reported failure: SQLite's variable limit surfaced as the caller's error.
        Array.from({ length: 40_000 }, (_, i) => `src-${i}`),
        {},
      ],
      (o) => store.search("flamingo", o as never),
    ),
    ...optionRows("search", "sessionId", BAD_IDS.slice(1), (o) => store.search("flamingo", o as never)),
    ...optionRows("search", "sort", BAD_CHOICES, (o) => store.search("flamingo", o as never)),
    ...optionRows("search", "substring", BAD_FLAGS, (o) => store.search("flamingo", o as never)),
    // FTS upkeep
    ...bagRows("rebuildFts", "timeoutMs", (v) => store.rebuildFts(v as never)),
    ...optionRows("rebuildFts", "timeoutMs", BAD_WAITS, (o) => store.rebuildFts(o as never)),
    ...bagRows("ftsBackfillStep", "chunkRows", (v) => store.ftsBackfillStep(v as never)),
    ...optionRows("ftsBackfillStep", "chunkRows", [...BAD_INTEGERS, 0], (o) =>
      store.ftsBackfillStep(o as never),
    ),
    // ftsStatus, startFtsBackfill, optimizeFts, retryDeferredFtsRecovery, maintenanceTick,
    // checkIntegrity and close take no input.
  ];
}

/** createStore's arguments, on `path` (an existing store's, or one that must not be created). */
function openRows(f: Fixture, path: string): Row[] {
  const { driver, host } = f.target;
  const open = (options: unknown) => createStore(driver, path, options as StoreOptions);
  const withHost = (options: Record<string, unknown>) => open({ host, ...options });
  const patience = (key: string, values: unknown[]) =>
    values.map((v) => ({
      label: `openStore({ patience: { ${key}: ${show(v)} } })`,
      call: () => withHost({ patience: { [key]: v } }),
      field: `openStore.patience.${key}`,
    }));
  const backoff = (key: string) =>
    BAD_WAITS.map((v) => ({
      label: `openStore({ recoveryBackoff: { ${key}: ${show(v)} } })`,
      call: () => withHost({ recoveryBackoff: { [key]: v } }),
      field: `openStore.recoveryBackoff.${key}`,
    }));
  return [
    ...[
      42,
      undefined,
      null,
      {},
      [],
      Symbol("p"),
      10n,
      "a\u0000b.db",
      "x".repeat(40_000),
      "a\uD800.db",
      "\uDC00",
    ].map((v) => ({
      label: `openStore(${show(v)})`,
      call: () => createStore(driver, v as never, { host }),
      field: "openStore.path",
    })),
    ...[42, null, undefined, {}, { name: "fake" }, { open: () => undefined }, "better-sqlite3"].map((v) => ({
      label: `createStore(driver: ${show(v)})`,
      call: () => createStore(v as never, path, { host }),
      field: "driver",
    })),
    ...bagRows("openStore", "readOnly", open),
    ...optionRows("openStore", "readOnly", BAD_FLAGS, (o) => withHost(o as never)),
    ...optionRows("openStore", "allowUnsafeWal", BAD_FLAGS, (o) => withHost(o as never)),
    ...optionRows("openStore", "repairFtsOnOpen", BAD_FLAGS, (o) => withHost(o as never)),
    ...optionRows("openStore", "journalMode", [...BAD_CHOICES, "WAL", "memory", "off"], (o) =>
      withHost(o as never),
    ),
    ...optionRows("openStore", "durability", [...BAD_CHOICES, "FULL", "off", "extra"], (o) =>
      withHost(o as never),
    ),
    ...optionRows("openStore", "sqliteVersion", ["abc", "3", "", 3.51, HUGE, {}], (o) =>
      withHost(o as never),
    ),
    ...optionRows("openStore", "admissionTimeoutMs", BAD_WAITS, (o) => withHost(o as never)),
    ...optionRows("openStore", "host", [42, "node", {}, { stat: () => undefined }, []], (o) => open(o)),
    ...optionRows("openStore", "now", [42, "now", {}, Date.now()], (o) => withHost(o as never)),
    ...optionRows("openStore", "patience", [42, "fast", [], throwingGetter("writeMs")], (o) =>
      withHost(o as never),
    ),
    ...patience("openMs", BAD_WAITS),
    ...patience("writeMs", BAD_WAITS),
    ...patience("appendMs", BAD_WAITS),
    ...optionRows("openStore", "recoveryBackoff", [42, [], trap()], (o) => withHost(o as never)),
    ...backoff("baseMs"),
    ...backoff("maxMs"),
    ...backoff("floorMs"),
  ];
}

export function badInputSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);

  describe("bad input", () => {
    test("every Store method refuses wrong input with INVALID_INPUT and changes nothing", async (f) => {
      const store = await f.open();
      await seed(store);
      const rows = storeRows(store);
      await sweep(f, rows);
      // The store still works, and null options mean the defaults everywhere.
      assert.equal(await store.messageCount(), 3);
      assert.deepEqual(
        (await store.listSessions(null)).map((s) => s.id),
        ["s2", "s1"],
      );
      assert.equal((await store.getMessages("s1", null)).length, 2);
      assert.equal((await store.getMessages("s1", { limit: null, afterId: null } as never)).length, 2);
      assert.equal((await store.search("flamingo", null)).hits.length, 2);
      assert.equal((await store.search("flamingo", { limit: -0, roles: ["user", "user"] })).hits.length, 0);
      assert.equal((await store.search("flamingo", { roles: ["user", "user"] })).hits.length, 1);
      assert.equal((await store.rebuildFts(null)).rebuilt, true);
    });

    test("backfillFts rejects bad options (a rejection, not a synchronous throw) and changes nothing", async (f) => {
      const store = await f.open();
      await seed(store);
      const watcher = f.raw();
      const before = snapshot(watcher);
      const bad: Array<[unknown, string]> = [
        ...BAD_BAGS.map((v): [unknown, string] => [v, "backfillFts"]),
        [throwingGetter("chunkRows"), "backfillFts.chunkRows"],
        ...[...BAD_INTEGERS, 0].map((v): [unknown, string] => [{ chunkRows: v }, "backfillFts.chunkRows"]),
        ...[5, "fn", {}, []].map((v): [unknown, string] => [{ onProgress: v }, "backfillFts.onProgress"]),
        ...[5, "signal", {}, { aborted: false }].map((v): [unknown, string] => [
          { signal: v },
          "backfillFts.signal",
        ]),
      ];
      for (const [options, field] of bad) {
        let pending: Promise<void> | undefined;
        assert.doesNotThrow(
          () => {
            pending = store.backfillFts(options as never);
          },
          `backfillFts(${show(options)}) threw synchronously`,
        );
        await assert.rejects(pending as Promise<void>, (error: Error & { code?: string; field?: string }) => {
          assert.equal(error.code, "INVALID_INPUT", error.message);
          assert.ok(error.field?.startsWith(field), `${error.field} does not name ${field}`);
          return true;
        });
        assert.deepEqual(snapshot(watcher), before, `backfillFts(${show(options)}) changed stored data`);
      }
    });

    test(
      "a value longer than the engine takes (SQLITE_TOOBIG) is INVALID_INPUT, tried once, nothing stored",
      async (f) => {
        // An engine built with a lower value limit than the store's 16 Mi characters (a libSQL
        // server refuses from about 5 M): here, the driver refuses strings past 1000 characters.
        const engine = shortValueDriver(f.target.driver, 1000);
        const store = createStore(engine.driver, f.file(), { host: f.target.host });
        store.createSession({ id: "s1", source: "cli" });
        const big = { role: "user" as const, content: "x".repeat(1001) };
        const alone = throwsCode(() => store.appendMessage("s1", big), "INVALID_INPUT") as Error & {
          field?: string;
        };
        assert.equal(alone.field, "value");
        assert.match(alone.message, /the append of 1 message to session "s1"/);
        assert.equal(engine.refusals, 1, "the refused write was run again");
        // Inside a transaction the body gets the same error and may go on.
        store.transaction((tx) => {
          tx.appendMessage("s1", { role: "user", content: "before" });
          throwsCode(
            () => tx.appendMessages("s1", [{ role: "user", content: "in the batch" }, big]),
            "INVALID_INPUT",
          );
          tx.appendMessage("s1", { role: "user", content: "after" });
        });
        assert.equal(engine.refusals, 2);
        assert.deepEqual(
          store.getMessages("s1").map((m) => m.content),
          ["before", "after"],
        );
        assert.equal(store.getSession("s1")?.messageCount, 2);
        store.close();
      },
      ["driver-hooks"],
    );

    test(
      "createStore refuses bad paths, drivers and options before touching any file",
      async (f) => {
        const existing = await f.open();
        await seed(existing);
        await existing.close();
        // On the existing store: a refused open must not open, repair or convert it.
        await sweep(f, openRows(f, f.file()));
        // On a new path: a refused open must not create it (the sweep compares the directory).
        await sweep(f, openRows(f, f.file("never-created.db")));
        // null options are the defaults.
        createStore(f.target.driver, f.file(), null).close();
      },
      ["files"],
    );

    test(
      "a path the file system cannot take is STORE_OPEN_FAILED, not a raw file-system error",
      async (f) => {
        const tooLong = f.file(`${"n".repeat(300)}.db`);
        await throwsCode(() => f.open({}, tooLong), "STORE_OPEN_FAILED");
      },
      ["files"],
    );

    test("a NaN or infinite patience budget is refused at open, even under real lock contention", async (f) => {
      const store = await f.open();
      await seed(store);
      const watcher = f.raw();
      const before = snapshot(watcher);
      const blocker = f.raw();
      blocker.exec("BEGIN IMMEDIATE");
      try {
        const started = Date.now();
        for (const key of ["openMs", "writeMs", "appendMs"]) {
          for (const budget of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
            // If the open ever accepted the budget, the writes below would meet the held lock:
            // with a NaN budget the patience loop used to spin there for ever.
            // The other budgets are short, so a regression fails fast instead of waiting.
            await throwsCode(async () => {
              const other = await f.open({
                patience: { openMs: 200, writeMs: 200, appendMs: 200, [key]: budget },
              });
              await other.recordUsage("s1", { model: "m" });
              await other.appendMessage("s1", { role: "user", content: "blocked" });
            }, "INVALID_INPUT");
          }
        }
        const waited = Date.now() - started;
        assert.ok(waited < 5000, `refusing nine budgets took ${waited} ms`);
      } finally {
        blocker.exec("ROLLBACK");
      }
      assert.deepEqual(snapshot(watcher), before);
    });
  });
}
