/**
 * The conformance harness: what a runtime passes in, and helpers every suite file uses. It
 * runs under vitest, bun:test and `deno test` (node:test), so it takes the runner's
 * `describe`/`it` and asserts with node:assert/strict, which all three runtimes provide.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SqliteConnection, SqliteDriver } from "../driver.js";
import type { Host } from "../host/host.js";
import type { StoreOptions } from "../store/types.js";
import { createStore, type Store } from "../store.js";
import type { ChildAppender } from "./appender.js";

/** A SQLite version the journal policy judges safe: pinned where a test needs WAL whatever
 * SQLite the driver has (a vulnerable one would create DELETE stores). */
export const SAFE_SQLITE = "3.53.0";

/** A test runner's `describe`/`it` (vitest, bun:test, node:test). */
export interface Runner {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => void | Promise<void>): void;
}

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
}

/** Per-test context. */
export interface Fixture {
  target: ConformanceTarget;
  /** A path in a fresh temporary directory. */
  file(name?: string): string;
  /** Open a store on `path` (default: the fixture's store path) with the target's driver and host. */
  open(options?: StoreOptions, path?: string): Store;
  /** A raw connection through the driver (for setting up states the API cannot produce). */
  raw(path?: string, readOnly?: boolean): SqliteConnection;
}

/** Run `body` with a fresh temporary directory that is removed afterwards. */
export async function withFixture(
  target: ConformanceTarget,
  body: (f: Fixture) => void | Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-conf-"));
  const opened: Array<{ close(): void }> = [];
  const file = (name = "state.db") => join(dir, name);
  const fixture: Fixture = {
    target,
    file,
    open(options, path = file()) {
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
        handle.close();
      } catch {
        // already closed by the test
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `it` with a fresh fixture per test. */
export function fixtureTest(
  target: ConformanceTarget,
): (name: string, body: (f: Fixture) => void | Promise<void>) => void {
  return (name, body) => target.it(name, () => withFixture(target, body));
}

/** Assert that `fn` throws a sessiondb error with `code` (and return it for more checks). */
export function throwsCode(fn: () => unknown, code: string): Error & { code: string } {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof Error, `expected an error with code ${code}, but nothing was thrown`);
  assert.equal((caught as { code?: string }).code, code, `wrong error: ${(caught as Error).message}`);
  return caught as Error & { code: string };
}

/** Scalar result of a query on a raw connection. */
export function scalar(conn: SqliteConnection, sql: string, ...params: (string | number | null)[]): unknown {
  const row = conn.prepare(sql).get(...params);
  return row === undefined ? undefined : Object.values(row)[0];
}

/** A driver that records every SQL text it is asked to exec or prepare, and calls `before(sql)`
 * first (a test can act at a precise point of an open: take a lock, release one). */
export function recordingDriver(
  driver: SqliteDriver,
  before?: (sql: string) => void,
): { driver: SqliteDriver; statements: string[] } {
  const statements: string[] = [];
  const see = (sql: string) => {
    statements.push(sql);
    before?.(sql);
  };
  return {
    statements,
    driver: {
      name: driver.name,
      open(path, flags) {
        const conn = driver.open(path, flags);
        return {
          exec: (sql) => {
            see(sql);
            conn.exec(sql);
          },
          prepare: (sql) => {
            see(sql);
            return conn.prepare(sql);
          },
          close: () => conn.close(),
        };
      },
    },
  };
}

export { assert };
