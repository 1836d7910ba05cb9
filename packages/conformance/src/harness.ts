/**
 * The conformance harness: what a runtime passes in, and helpers every suite file uses. It
 * runs under vitest, bun:test and `deno test` (node:test), so it takes the runner's
 * `describe`/`it` and asserts with node:assert/strict, which all three runtimes provide.
 */
import strictAssert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  createStore,
  type DeleteSessionsOptions,
  type DeleteSessionsResult,
  type Host,
  type ImportSessionInput,
  type ImportSessionsOptions,
  type ImportSessionsResult,
  type SqliteJournalMode,
  type Store,
  type StoreOptions,
  type VacuumOptions,
  type VacuumResult,
} from "@sessiondb/core";
import type { SqliteConnection, SqliteDriver, SqlValue } from "@sessiondb/core/driver";
import type { AsyncMethods, BackfillFtsOptions, StoreOperations } from "@sessiondb/core/testing";
import type { ChildAppender } from "./appender.js";

/** A SQLite version the journal policy judges safe: pinned where a test needs WAL whatever
 * SQLite the driver has (a vulnerable one would create DELETE stores). */
export const SAFE_SQLITE = "3.53.0";

/** A test runner's `describe`/`it` (vitest, bun:test, node:test). */
export interface Runner {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => void | Promise<void>): void;
}

/**
 * A store as the suite sees it: every method awaited (a sync store's values are awaited
 * harmlessly), so one suite proves the sync stores and the async ones. Typed with promises so a
 * missing `await` is a type error, not a test that compares a promise.
 */
export interface ConformanceStore extends AsyncMethods<StoreOperations> {
  readonly readOnly: boolean;
  readonly journalMode: SqliteJournalMode;
  readonly sqliteVersion: string;
  readonly schemaWarnings: readonly string[];
  // biome-ignore lint/suspicious/noExplicitAny: a sync store's body returns values, an async one's promises
  transaction(fn: (tx: any) => any): Promise<unknown>;
  backfillFts(options?: BackfillFtsOptions | null): Promise<void>;
  vacuum(options?: VacuumOptions | null): Promise<VacuumResult>;
  deleteSessions(
    ids: readonly string[],
    options?: DeleteSessionsOptions | null,
  ): Promise<DeleteSessionsResult>;
  importSessions(
    items: Iterable<ImportSessionInput> | AsyncIterable<ImportSessionInput>,
    options?: ImportSessionsOptions | null,
  ): Promise<ImportSessionsResult>;
  close(): Promise<void> | void;
}

/**
 * What a target's stores can do beyond the Store API. A sync store on a local file can do all of
 * it; an async target declares what its engine has. A test that needs a missing one is skipped
 * with the reason printed.
 * - `files`: preflight and open errors on paths, file modes, read-only mounts, hot journals;
 * - `journal`: the journal policy (WAL/DELETE, the WAL-reset refusal, mode races);
 * - `disk-full`: a real full file system under the store;
 * - `backup`, `repair`: `store.backup` and `repairStore` (files);
 * - `admission-lock`: the FTS admission is the lock file beside the store;
 * - `child-processes`: other processes append to the same file while the store runs;
 * - `driver-hooks`: stores opened on a wrapped driver (statement recording, timed hooks).
 */
export type Capability =
  | "files"
  | "journal"
  | "disk-full"
  | "backup"
  | "repair"
  | "admission-lock"
  | "child-processes"
  | "driver-hooks";

export const ALL_CAPABILITIES: readonly Capability[] = [
  "files",
  "journal",
  "disk-full",
  "backup",
  "repair",
  "admission-lock",
  "child-processes",
  "driver-hooks",
];

export interface ConformanceTarget extends Runner {
  /** Label in test names, e.g. "better-sqlite3". */
  name: string;
  /** The driver under test. */
  driver: SqliteDriver;
  /** The runtime's host (file modes, preflight, holder records). */
  host?: Host;
  /** Starts a writer in a child process on this runtime (conformance/appender.ts); without it
   * the multi-process tests are skipped with the reason printed. */
  appender?: ChildAppender;
  /** Open a store on `path` (options include the target's host): an async store factory, e.g.
   * `createAsyncStore` over an executor on that file. Default: `createStore` with `driver`. */
  openStore?: (path: string, options: StoreOptions) => ConformanceStore | Promise<ConformanceStore>;
  /** What this target's stores can do (see `Capability`); default: all of it, or nothing beyond
   * the Store API when `openStore` is given. */
  capabilities?: readonly Capability[];
}

/** The target's capabilities. */
export function capabilitiesOf(target: ConformanceTarget): readonly Capability[] {
  return target.capabilities ?? (target.openStore ? [] : ALL_CAPABILITIES);
}

/** True when the target's stores are async (opened by `openStore`). */
export function isAsyncTarget(target: ConformanceTarget): boolean {
  return target.openStore !== undefined;
}

/** Per-test context. */
export interface Fixture {
  target: ConformanceTarget;
  /** A path in a fresh temporary directory. */
  file(name?: string): string;
  /** Open a store on `path` (default: the fixture's store path) with the target's driver and
   * host, or its `openStore`. */
  open(options?: StoreOptions, path?: string): Promise<ConformanceStore>;
  /** A sync Store on `path` with the target's driver and host, for the suites on what only a
   * store on a local file has (backup, repair, file modes, a full disk). */
  openFile(options?: StoreOptions, path?: string): Store;
  /** A raw connection through the driver (for setting up states the API cannot produce). */
  raw(path?: string, readOnly?: boolean): SqliteConnection;
}

/** Run `body` with a fresh temporary directory that is removed afterwards. */
export async function withFixture(
  target: ConformanceTarget,
  body: (f: Fixture) => void | Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-conf-"));
  const opened: Array<{ close(): unknown }> = [];
  const file = (name = "state.db") => join(dir, name);
  const fixture: Fixture = {
    target,
    file,
    async open(options, path = file()) {
      const settings = { host: target.host, ...options };
      const store = target.openStore
        ? await target.openStore(path, settings)
        : (createStore(target.driver, path, settings) as unknown as ConformanceStore);
      opened.push(store);
      return store;
    },
    openFile(options, path = file()) {
      const store = createStore(target.driver, path, { host: target.host, ...options });
      opened.push(store);
      return store;
    },
    raw(path = file(), readOnly = false) {
      const conn = target.driver.open(path, { readOnly });
      conn.exec("PRAGMA busy_timeout = 0");
      opened.push(conn);
      return conn;
    },
  };
  try {
    await body(fixture);
  } finally {
    for (const handle of opened.reverse()) {
      try {
        await handle.close();
      } catch {
        // already closed by the test
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `it` with a fresh fixture per test; `needs`: the capabilities the test needs (skipped, with
 * the reason printed, on a target without them). */
export function fixtureTest(
  target: ConformanceTarget,
): (name: string, body: (f: Fixture) => void | Promise<void>, needs?: readonly Capability[]) => void {
  return (name, body, needs = []) => {
    const missing = needs.filter((need) => !capabilitiesOf(target).includes(need));
    if (missing.length > 0) {
      target.it(name, () => {
        console.log(
          `[conformance] ${target.name}: skipped "${name}": the target's stores lack ${missing.join(", ")}`,
        );
      });
      return;
    }
    target.it(name, () => withFixture(target, body));
  };
}

/** A fixture whose `open` is `openFile`: the suites on sync stores over a local file. */
export type FileFixture = Omit<Fixture, "open"> & { open: Fixture["openFile"] };

/** `fixtureTest` whose bodies get sync stores on the local file: for the suites on what only such
 * a store has (registered by `runConformance` only on targets that have it), and for tests that
 * need `needs` (skipped, with the reason printed, elsewhere). */
export function fileFixtureTest(
  target: ConformanceTarget,
  needs: readonly Capability[] = [],
): (name: string, body: (f: FileFixture) => void | Promise<void>) => void {
  const test = fixtureTest(target);
  return (name, body) => test(name, (f) => body({ ...f, open: f.openFile }), needs);
}

/** Register `suite` when the target has `capability`; otherwise one test that says why not. */
export function suiteIf(
  target: ConformanceTarget,
  capability: Capability,
  name: string,
  suite: (target: ConformanceTarget) => void,
): void {
  if (capabilitiesOf(target).includes(capability)) {
    suite(target);
    return;
  }
  target.describe(name, () => {
    target.it("skipped", () => {
      console.log(
        `[conformance] ${target.name}: skipped the ${name} suite: the target's stores lack ${capability}`,
      );
    });
  });
}

/** Assert that the sync `fn` throws a sessiondb error with `code` (and return it). */
export function throwsCodeSync(fn: () => unknown, code: string): Error & { code: string } {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  return expectCode(caught, code, caught !== undefined);
}

/** Assert that `fn` throws a sessiondb error with `code`, or returns a promise that rejects with
 * one (and return the error for more checks, as a promise in that case). A sync call is checked
 * at once, so inside a sync transaction body the check has run when it returns; `await` the
 * result either way. */
export function throwsCode(
  fn: () => unknown,
  code: string,
): (Error & { code: string }) | Promise<Error & { code: string }> {
  let result: unknown;
  try {
    result = fn();
  } catch (error) {
    return expectCode(error, code, true);
  }
  if (isThenable(result)) {
    return (result as Promise<unknown>).then(
      () => expectCode(undefined, code, false),
      (error: unknown) => expectCode(error, code, true),
    );
  }
  return expectCode(undefined, code, false);
}

/** Assert that each call returns a promise — never throws synchronously — that rejects with a
 * sessiondb error with `code` (a promise-returning method reports every failure, bad input
 * included, as a rejection). `name` names the method in the message. */
export async function rejectsEach(
  calls: ReadonlyArray<() => Promise<unknown>>,
  name: string,
  code: string,
): Promise<void> {
  for (const call of calls) {
    let pending: Promise<unknown> | undefined;
    assert.doesNotThrow(() => {
      pending = call();
    }, `${name} threw synchronously`);
    await throwsCode(() => pending as Promise<unknown>, code);
  }
}

/** A paced job's two early refusals: inside `store.transaction` it is INVALID_INPUT (it runs
 * transactions of its own), and with a signal already aborted it rejects. `start(s, signal)`
 * starts the job on `s`. */
export async function refusesInTransactionAndAborted(
  store: ConformanceStore,
  start: (s: ConformanceStore, signal?: AbortSignal) => Promise<unknown>,
): Promise<void> {
  let inside: Promise<unknown> | undefined;
  await store.transaction((tx: ConformanceStore) => {
    inside = start(tx);
    inside.catch(() => undefined);
  });
  await throwsCode(() => inside as Promise<unknown>, "INVALID_INPUT");
  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(start(store, aborted.signal));
}

function expectCode(caught: unknown, code: string, thrown: boolean): Error & { code: string } {
  assert.ok(thrown, `expected an error with code ${code}, but nothing was thrown`);
  assert.ok(caught instanceof Error, `expected an error with code ${code}, but nothing was thrown`);
  assert.equal((caught as { code?: string }).code, code, `wrong error: ${(caught as Error).message}`);
  return caught as Error & { code: string };
}

/**
 * Run `body` as `store.transaction`'s body, on a sync or an async store alike: `body` is a
 * generator that yields each store call's result and gets it back — the value at once on a sync
 * store (its transaction must not await), the awaited value on an async one. On a sync store the
 * whole transaction runs before this returns (nested ones inside a body included); a promise
 * yielded there (a check of a promise) is awaited afterwards, so its failure surfaces. Await the
 * result either way.
 */
export function transact<T>(
  target: ConformanceTarget,
  store: ConformanceStore,
  // biome-ignore lint/suspicious/noExplicitAny: each yield gets back its own call's value
  body: (tx: ConformanceStore) => Generator<unknown, T, any>,
): T | Promise<T> {
  if (isAsyncTarget(target)) {
    return store.transaction(async (tx: ConformanceStore) => {
      const steps = body(tx);
      let step = steps.next();
      while (!step.done) {
        let value: unknown;
        try {
          value = await step.value;
        } catch (error) {
          step = steps.throw(error);
          continue;
        }
        step = steps.next(value);
      }
      return step.value;
    }) as Promise<T>;
  }
  const pending: unknown[] = [];
  const sync = store as unknown as { transaction(fn: (tx: ConformanceStore) => T): T };
  const result = sync.transaction((tx) => {
    const steps = body(tx);
    let step = steps.next();
    while (!step.done) {
      if (isThenable(step.value)) pending.push(step.value);
      step = steps.next(step.value);
    }
    return step.value;
  });
  return pending.length === 0 ? result : Promise.all(pending).then(() => result);
}

/**
 * Run `job` while `writer` appends to its session `sessionId` one message after another, 2 ms
 * apart, as another process would. A paced job yields between its steps, so the appends land in
 * those gaps; one append lands before `job` starts, so the appender is known to be running. The
 * next append starts only when the last has finished: a timer that queued one every 2 ms whatever
 * they took built a backlog on a slow machine (appends over HTTP at 20 ms each: ten queued per
 * one done), all of it awaited after the job. Returns what `job` returned and how many messages
 * were appended (every append has finished by then).
 */
export async function whileAppending<T>(
  writer: ConformanceStore,
  sessionId: string,
  job: () => Promise<T>,
): Promise<{ result: T; appended: number }> {
  await writer.appendMessage(sessionId, { role: "user", content: "live first" });
  let appended = 1;
  let stopped = false;
  const appender = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (stopped) break;
      await writer.appendMessage(sessionId, { role: "user", content: `live ${appended}` });
      appended++;
    }
  })();
  let result: T;
  try {
    result = await job();
  } finally {
    stopped = true;
    await appender;
  }
  return { result, appended };
}

/** Run `fn` with `dir` as the working directory (for relative paths), then go back, also when it
 * throws or rejects. */
export async function inFolder<T>(dir: string, fn: () => T | Promise<T>): Promise<T> {
  const previous = process.cwd();
  process.chdir(dir);
  try {
    return await fn();
  } finally {
    process.chdir(previous);
  }
}

/** What `fn` threw or rejected with (undefined when it did neither): at once when `fn` throws
 * or returns a value, as a promise when it returns one. */
export function failureOf(fn: () => unknown): unknown {
  let result: unknown;
  try {
    result = fn();
  } catch (error) {
    return error;
  }
  if (isThenable(result)) {
    return (result as Promise<unknown>).then(
      () => undefined,
      (error: unknown) => error,
    );
  }
  return undefined;
}

function isThenable(value: unknown): boolean {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/** Scalar result of a query on a raw connection. */
export function scalar(conn: SqliteConnection, sql: string, ...params: (string | number | null)[]): unknown {
  const row = conn.prepare(sql).get(...params);
  return row === undefined ? undefined : Object.values(row)[0];
}

/** SQLite's plan for `sql` with `params` bound, its steps joined by " | ". */
export function queryPlan(conn: SqliteConnection, sql: string, ...params: SqlValue[]): string {
  return conn
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...params)
    .map((row) => String(row.detail))
    .join(" | ");
}

/** A driver that records every SQL text it is asked to exec or prepare, and calls `before(sql)`
 * first (a test can act at a precise point of an open: take a lock, release one); `beforeStep`,
 * when given, before every execution as well — each exec and each run/get/all of a prepared
 * statement, which the store prepares once and then reuses from its cache — with the path of the
 * connection's file. Online backups go to the wrapped driver's. */
export function recordingDriver(
  driver: SqliteDriver,
  before?: (sql: string) => void,
  beforeStep?: (sql: string, path: string) => void,
): { driver: SqliteDriver; statements: string[] } {
  const statements: string[] = [];
  const see = (sql: string) => {
    statements.push(sql);
    before?.(sql);
  };
  const inner = new WeakMap<SqliteConnection, SqliteConnection>();
  const recording: SqliteDriver = {
    name: driver.name,
    open(path, flags) {
      const conn = driver.open(path, flags);
      const wrapped: SqliteConnection = {
        exec: (sql) => {
          see(sql);
          beforeStep?.(sql, path);
          conn.exec(sql);
        },
        prepare: (sql) => {
          see(sql);
          const statement = conn.prepare(sql);
          if (!beforeStep) return statement;
          return {
            run: (...params) => {
              beforeStep(sql, path);
              return statement.run(...params);
            },
            get: (...params) => {
              beforeStep(sql, path);
              return statement.get(...params);
            },
            all: (...params) => {
              beforeStep(sql, path);
              return statement.all(...params);
            },
          };
        },
        close: () => conn.close(),
      };
      inner.set(wrapped, conn);
      return wrapped;
    },
  };
  const backup = driver.backup?.bind(driver);
  if (backup)
    recording.backup = (conn, destination, options) => backup(inner.get(conn) ?? conn, destination, options);
  return { statements, driver: recording };
}

/** Assertions that take promises as such; every other one refuses a promise among its first two
 * arguments, so a store call the suite forgot to await fails loudly instead of comparing two
 * promises (which `deepEqual` finds equal). */
const TAKES_PROMISES = new Set(["rejects", "doesNotReject"]);

const assert: typeof strictAssert = new Proxy(strictAssert, {
  get(target, key, receiver) {
    const value = Reflect.get(target, key, receiver);
    if (typeof value !== "function" || TAKES_PROMISES.has(String(key))) return value;
    return (...args: unknown[]) => {
      if (args.slice(0, 2).some(isThenable)) {
        throw new Error(`assert.${String(key)} got a promise: a store call or helper was not awaited`);
      }
      return (value as (...a: unknown[]) => unknown).apply(target, args);
    };
  },
});

export { assert };
