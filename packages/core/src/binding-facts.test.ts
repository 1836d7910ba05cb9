import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { testDriver } from "../test/support/driver.js";
import { knownSqliteVersion, readSqliteVersion, readsTextWholeOn, sqliteVersionOf } from "./binding-facts.js";
import type { SqliteConnection, SqliteDriver } from "./driver.js";
import { parseSqliteVersion } from "./journal.js";

/** `testDriver` behind a wrapper that counts the statements its connections prepare. */
function countingDriver(): { driver: SqliteDriver; prepared: string[] } {
  const base = testDriver;
  const prepared: string[] = [];
  const driver: SqliteDriver = {
    name: base.name,
    open(path, flags) {
      const conn = base.open(path, flags);
      return {
        exec: (sql) => conn.exec(sql),
        prepare: (sql) => {
          prepared.push(sql);
          return conn.prepare(sql);
        },
        close: () => conn.close(),
      } satisfies SqliteConnection;
    },
  };
  return { driver, prepared };
}

describe("binding facts", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "sessiondb-facts-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("reads the real library version", () => {
    const conn = testDriver.open(join(dir, "v.db"), { readOnly: false });
    expect(() => parseSqliteVersion(readSqliteVersion(conn))).not.toThrow();
    conn.close();
  });

  test("each fact is asked once per driver, whichever connection comes first", () => {
    const { driver, prepared } = countingDriver();
    expect(knownSqliteVersion(driver)).toBeUndefined();
    const first = driver.open(join(dir, "a.db"), { readOnly: false });
    const version = sqliteVersionOf(driver, first);
    const whole = readsTextWholeOn(driver, first);
    first.close();
    expect(prepared).toHaveLength(2);
    const second = driver.open(join(dir, "b.db"), { readOnly: false });
    expect(sqliteVersionOf(driver, second)).toBe(version);
    expect(readsTextWholeOn(driver, second)).toBe(whole);
    second.close();
    expect(prepared).toHaveLength(2);
    expect(knownSqliteVersion(driver)).toBe(version);
    // Both of Node's drivers read TEXT past a NUL.
    expect(whole).toBe(true);
    // Another driver object is another library as far as the facts go: asked again.
    const other = countingDriver();
    const conn = other.driver.open(join(dir, "c.db"), { readOnly: false });
    expect(sqliteVersionOf(other.driver, conn)).toBe(version);
    conn.close();
    expect(other.prepared).toHaveLength(1);
  });
});
