/**
 * Core's driver contract, run once per driver that loads in this Node, with lock holders in a
 * child process too. Drivers that do not load are skipped with the reason; a driver named in
 * SESSIONDB_REQUIRE_DRIVERS that does not load fails the run instead.
 */
import process from "node:process";
import { childLockHolder, runDriverContract } from "@sessiondb/conformance";
import type { SqliteDriver } from "@sessiondb/core";
import { describe, expect, it } from "vitest";
import { betterSqlite3Driver } from "./better-sqlite3.js";
import { nodeSqliteDriver } from "./node-sqlite.js";

const required = new Set((process.env.SESSIONDB_REQUIRE_DRIVERS ?? "").split(",").filter(Boolean));

/** The holder: this Node with the same binding; "locked" once it holds `begin`, rolls back when stdin ends. */
const HOLDER = `
const [path, binding, begin] = process.argv.slice(1);
const db = binding === "node:sqlite"
  ? new (process.getBuiltinModule("node:sqlite").DatabaseSync)(path)
  : new (require("better-sqlite3"))(path);
db.exec(begin);
db.exec("INSERT INTO t(v) VALUES ('held')");
process.stdout.write("locked\\n");
process.stdin.resume();
process.stdin.on("end", () => { db.exec("ROLLBACK"); db.close(); process.exit(0); });
`;

const holdLockWith = (binding: string) =>
  childLockHolder((path, begin) => [process.execPath, "-e", HOLDER, path, binding, begin]);

function contract(name: string, makeDriver: () => SqliteDriver): boolean {
  let driver: SqliteDriver;
  try {
    driver = makeDriver();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (required.has(name)) {
      it(`${name} is available (required by this test run)`, () => {
        throw new Error(`${name} is required in this run but did not load: ${reason}`);
      });
    } else {
      console.info(`[drivers.test] skipping ${name} on Node ${process.versions.node}: ${reason}`);
      describe.skip(`${name} (unavailable on Node ${process.versions.node}: ${reason})`, () => {
        it("skipped", () => {});
      });
    }
    return false;
  }
  console.info(`[drivers.test] testing ${name} on Node ${process.versions.node}`);
  const label = `${name} on Node ${process.versions.node}`;
  runDriverContract({ name: label, driverName: name, driver, holdLock: holdLockWith(name), describe, it });
  return true;
}

const loaded = [contract("better-sqlite3", betterSqlite3Driver), contract("node:sqlite", nodeSqliteDriver)];

it("at least one driver loads in this Node", () => {
  expect(loaded.filter(Boolean).length).toBeGreaterThan(0);
});
