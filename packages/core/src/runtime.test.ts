/**
 * The runtime contract (runtime.ts) on a real driver: the default choice, names, the
 * one-library guard and option splitting. The adapters' own tests check the same on each
 * runtime's real drivers; here the cases a machine cannot produce for real are set up with
 * drivers that fail to load or a wrapper that reports another SQLite version.
 */
import { statSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir, testDriver } from "../test/support/driver.js";
import type { SqliteDriver } from "./driver.js";
import { DriverUnavailableError } from "./errors.js";
import { nodeFsHost } from "./host/node-fs.js";
import { defineRuntime, type RuntimeDefinition } from "./runtime.js";

const dirs: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.cleanup();
});
function path(name = "state.db"): string {
  const dir = tempDir("sessiondb-runtime-");
  dirs.push(dir);
  return dir.file(name);
}

/** The real driver under another name, its SQLite reporting `version` (a vulnerable build cannot
 * be loaded here for real). */
function renamed(name: string, version?: string): SqliteDriver {
  return {
    name,
    open(file, flags) {
      const conn = testDriver.open(file, flags);
      if (!version) return conn;
      return {
        ...conn,
        prepare: (sql) =>
          /sqlite_version\(\)/i.test(sql)
            ? { run: () => ({ changes: 0, lastInsertRowid: 0 }), get: () => ({ v: version }), all: () => [] }
            : conn.prepare(sql),
      };
    },
  };
}

const missing = (why: string) => (): SqliteDriver => {
  throw new DriverUnavailableError(why);
};

function runtime<D extends string>(drivers: RuntimeDefinition<D>["drivers"]) {
  return defineRuntime({
    name: "node",
    version: "0.0.0",
    host: nodeFsHost,
    drivers,
    installHint: "Install one.",
  });
}

describe("defineRuntime", () => {
  it("the default is the first driver that loads whose SQLite lacks the WAL-reset bug", () => {
    const rt = runtime({
      gone: missing("gone is not installed"),
      old: () => renamed("old", "3.40.1"),
      fixed: () => renamed("fixed"),
    });
    expect(rt.driverNames).toEqual(["gone", "old", "fixed"]);
    expect(rt.resolveDriver().name).toBe("fixed");
    expect(rt.sqliteVersion("old")).toBe("3.40.1");
  });

  it("when every driver that loads has the bug, the first of them; when none loads, what to install", () => {
    expect(
      runtime({ a: () => renamed("a", "3.40.1"), b: () => renamed("b", "3.45.0") }).resolveDriver().name,
    ).toBe("a");
    const none = runtime({ a: missing("a is not installed"), b: missing("b needs Node 22") });
    const error = (() => {
      try {
        none.resolveDriver();
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(DriverUnavailableError);
    expect(error?.message).toMatch(/^No SQLite binding is available on node 0\.0\.0\. Install one\./);
    expect(error?.message).toContain("a is not installed | b needs Node 22");
  });

  it("a runtime with one driver picks it without opening a database to probe its version", () => {
    let opens = 0;
    const counted = (): SqliteDriver => {
      const inner = renamed("only", "3.40.1");
      return {
        name: inner.name,
        open: (file, flags) => {
          opens++;
          return inner.open(file, flags);
        },
      };
    };
    expect(runtime({ only: counted }).resolveDriver().name).toBe("only");
    expect(opens).toBe(0);
    // With a choice to make, each candidate is probed (an in-memory open) until one is safe.
    expect(runtime({ a: counted, b: () => renamed("b") }).resolveDriver().name).toBe("b");
    expect(opens).toBe(1);
  });

  it("a driver name picks that driver; an unknown one lists the choices", () => {
    const rt = runtime({ a: () => renamed("a"), b: () => renamed("b") });
    expect(rt.resolveDriver("b").name).toBe("b");
    expect(() => rt.resolveDriver("c" as never)).toThrow(/Unknown driver "c": on node use "a", "b"/);
    expect(() => rt.openStore(path(), { driver: "c" as never })).toThrow(DriverUnavailableError);
  });

  it("the first store claims its driver's name: another name is refused, by name or as an object", () => {
    const rt = runtime({ a: () => renamed("a"), b: () => renamed("b") });
    rt.openStore(path(), { driver: "b" }).close();
    expect(rt.resolveDriver().name).toBe("b");
    expect(() => rt.openStore(path(), { driver: "a" })).toThrow(/already opened a store with b/);
    expect(() => rt.openStore(path(), { driver: renamed("a") })).toThrow(DriverUnavailableError);
    const again = rt.openStore(path(), { driver: renamed("b") });
    expect(again.driverName).toBe("b");
    again.close();
  });

  it("openStore fills in the runtime's host (the store file is 0600) and refuses bad options", () => {
    const rt = runtime({ a: () => renamed("a") });
    const file = path();
    expect(() => rt.openStore(file, { readOnly: "yes" } as never)).toThrow(
      expect.objectContaining({ code: "INVALID_INPUT" }),
    );
    rt.openStore(file).close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
