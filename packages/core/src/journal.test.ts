import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { testDriver } from "../test/support/driver.js";
import type { SqliteConnection } from "./driver.js";
import { UnsafeSqliteError } from "./errors.js";
import {
  applyJournalPolicy,
  checkJournalSafety,
  isWalResetVulnerable,
  parseSqliteVersion,
  passiveCheckpoint,
  readJournalMode,
  walSupported,
} from "./journal.js";

describe("WAL-reset predicate", () => {
  test.each([
    ["3.50.4", true, true],
    ["3.51.2", true, true],
    ["3.51.3", false, true],
    ["3.50.7", false, true],
    ["3.50.6", true, true],
    ["3.51.0", true, true],
    ["3.44.6", false, true],
    ["3.44.5", true, true],
    ["3.45.0", true, true],
    ["3.53.1", false, true],
    ["3.6.23", false, false],
    ["3.7.0", true, true],
    ["3.8.10.2", true, true],
    ["4.0.0", false, true],
  ])("%s → vulnerable %s, WAL-capable %s", (version, vulnerable, wal) => {
    expect(isWalResetVulnerable(version)).toBe(vulnerable);
    expect(walSupported(version)).toBe(wal);
  });

  test("parseSqliteVersion reads three components and refuses garbage", () => {
    expect(parseSqliteVersion("3.51.3")).toEqual([3, 51, 3]);
    expect(parseSqliteVersion(" 3.8.10.2 ")).toEqual([3, 8, 10]);
    for (const bad of ["", "3.51", "v3.51.3", "3.51.x", "latest", "3.51.3-beta"]) {
      expect(() => parseSqliteVersion(bad)).toThrow(/Not a SQLite version/);
    }
  });
});

describe("journal policy on real files (better-sqlite3)", () => {
  const driver = testDriver;
  const SAFE = "3.53.1";
  const VULNERABLE = "3.50.4";
  let dir: string;
  const open: SqliteConnection[] = [];

  function connect(name: string, busyTimeoutMs = 5000): SqliteConnection {
    const conn = driver.open(join(dir, name), { readOnly: false });
    conn.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    open.push(conn);
    return conn;
  }

  function makeWalStore(name: string): void {
    const conn = connect(name);
    expect(applyJournalPolicy(conn, { sqliteVersion: SAFE, busyTimeoutMs: 5000 }).mode).toBe("wal");
    conn.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)");
    conn.close();
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "sessiondb-journal-"));
  });
  afterEach(() => {
    for (const conn of open.splice(0)) conn.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a new store becomes WAL on a safe SQLite, and a fresh connection sees it", () => {
    const conn = connect("new.db");
    expect(readJournalMode(conn)).toBe("delete");
    expect(applyJournalPolicy(conn, { sqliteVersion: SAFE, busyTimeoutMs: 5000 }).mode).toBe("wal");
    conn.exec("CREATE TABLE t(x)");
    expect(readJournalMode(connect("new.db"))).toBe("wal");
  });

  test("a new store stays DELETE on a pinned vulnerable version, even with allowUnsafeWal", () => {
    const conn = connect("vuln.db");
    expect(applyJournalPolicy(conn, { sqliteVersion: VULNERABLE, busyTimeoutMs: 5000 }).mode).toBe("delete");
    expect(
      applyJournalPolicy(conn, { sqliteVersion: VULNERABLE, allowUnsafeWal: true, busyTimeoutMs: 5000 }).mode,
    ).toBe("delete");
    conn.exec("CREATE TABLE t(x)");
    expect(readJournalMode(connect("vuln.db"))).toBe("delete");
    expect(() => checkJournalSafety(readJournalMode(conn), { sqliteVersion: VULNERABLE })).not.toThrow();
  });

  test("a SQLite without WAL keeps a new store in DELETE mode", () => {
    const conn = connect("old.db");
    expect(applyJournalPolicy(conn, { sqliteVersion: "3.6.23", busyTimeoutMs: 5000 }).mode).toBe("delete");
  });

  test("journalMode 'delete' is honoured for a new store", () => {
    const conn = connect("asked-delete.db");
    expect(
      applyJournalPolicy(conn, { sqliteVersion: SAFE, journalMode: "delete", busyTimeoutMs: 5000 }).mode,
    ).toBe("delete");
  });

  test("a WAL store on a vulnerable SQLite: writable refused, allowUnsafeWal allowed, read-only fine", () => {
    makeWalStore("wal.db");
    const writable = connect("wal.db");
    const mode = readJournalMode(writable);
    expect(mode).toBe("wal");
    expect(() => checkJournalSafety(mode, { sqliteVersion: VULNERABLE })).toThrow(UnsafeSqliteError);
    try {
      checkJournalSafety(mode, { sqliteVersion: VULNERABLE });
    } catch (error) {
      expect((error as UnsafeSqliteError).code).toBe("UNSAFE_SQLITE");
      expect((error as UnsafeSqliteError).sqliteVersion).toBe(VULNERABLE);
      expect((error as Error).message).toMatch(/allowUnsafeWal/);
    }
    expect(() => checkJournalSafety(mode, { sqliteVersion: VULNERABLE, allowUnsafeWal: true })).not.toThrow();
    expect(() => checkJournalSafety(mode, { sqliteVersion: SAFE })).not.toThrow();
    // Read-only opens never call checkJournalSafety (a reader cannot trigger the bug): the Store
    // simply opens with readOnly and reads. Show that such an open works on this WAL store.
    const reader = driver.open(join(dir, "wal.db"), { readOnly: true });
    open.push(reader);
    expect(readJournalMode(reader)).toBe("wal");
    expect(reader.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 1 });
  });

  test("an on-disk WAL store is never downgraded: asked for 'delete' or on a vulnerable SQLite", () => {
    makeWalStore("keep.db");
    const conn = connect("keep.db");
    expect(
      applyJournalPolicy(conn, { sqliteVersion: SAFE, journalMode: "delete", busyTimeoutMs: 5000 }).mode,
    ).toBe("wal");
    expect(
      applyJournalPolicy(conn, {
        sqliteVersion: VULNERABLE,
        allowUnsafeWal: true,
        journalMode: "delete",
        busyTimeoutMs: 5000,
      }).mode,
    ).toBe("wal");
    expect(readJournalMode(connect("keep.db"))).toBe("wal");
  });

  test("a DELETE store is upgraded to WAL on a safe SQLite", () => {
    const first = connect("upgrade.db");
    applyJournalPolicy(first, { sqliteVersion: VULNERABLE, busyTimeoutMs: 5000 });
    first.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)");
    first.close();
    const conn = connect("upgrade.db");
    expect(applyJournalPolicy(conn, { sqliteVersion: SAFE, busyTimeoutMs: 5000 }).mode).toBe("wal");
    expect(conn.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 1 });
  });

  test("a concurrent reader during the switch: fails fast, leaves the mode, restores busy_timeout", () => {
    const setup = connect("busy.db");
    setup.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)");
    const reader = connect("busy.db");
    reader.exec("BEGIN");
    reader.prepare("SELECT count(*) AS n FROM t").get(); // holds a SHARED lock

    const conn = connect("busy.db", 5000);
    const started = Date.now();
    const result = applyJournalPolicy(conn, { sqliteVersion: SAFE, busyTimeoutMs: 5000 });
    const took = Date.now() - started;
    expect(result).toEqual({ mode: "delete", deferred: true });
    expect(readJournalMode(conn)).toBe("delete");
    // busy_timeout 0 during the switch: it did not wait out the 5 s the connection had.
    expect(took).toBeLessThan(1000);
    expect(conn.prepare("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });

    reader.exec("COMMIT");
    expect(applyJournalPolicy(conn, { sqliteVersion: SAFE, busyTimeoutMs: 250 })).toEqual({
      mode: "wal",
      deferred: false,
    });
    expect(conn.prepare("PRAGMA busy_timeout").get()).toEqual({ timeout: 250 });
  });

  test("a mode SQLite reports other than asked is trusted: an in-memory database stays 'memory'", () => {
    const conn = driver.open(":memory:", { readOnly: false });
    open.push(conn);
    expect(applyJournalPolicy(conn, { sqliteVersion: SAFE, busyTimeoutMs: 100 }).mode).toBe("memory");
  });

  test("passive checkpoint moves WAL frames into the database and never truncates the WAL", () => {
    makeWalStore("ckpt.db");
    const conn = connect("ckpt.db");
    conn.exec("INSERT INTO t VALUES (2)");
    const reader = connect("ckpt.db");
    const walBytes = statSync(join(dir, "ckpt.db-wal")).size;
    expect(walBytes).toBeGreaterThan(0);
    expect(() => passiveCheckpoint(conn)).not.toThrow();
    expect(statSync(join(dir, "ckpt.db-wal")).size).toBe(walBytes);
    const row = conn.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as Record<string, number>;
    // After our passive checkpoint everything is already backfilled.
    expect(row.checkpointed).toBe(row.log);
    expect(reader.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 2 });
    // In a rollback-journal store it is a harmless no-op.
    const plain = connect("plain.db");
    expect(() => passiveCheckpoint(plain)).not.toThrow();
  });
});
