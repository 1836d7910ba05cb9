/** The driver contract: BUSY (in this process and, given a holder, another), READONLY, CANTOPEN, CONSTRAINT. */
import { chmodSync, existsSync } from "node:fs";
import { join } from "node:path";
import { canStillWrite, type DriverHarness, ignoresFileModes, type LockHolder } from "./driver-harness.js";
import { assert } from "./harness.js";

/** Register the lock, permission, open and constraint tests. */
export function lockAndOpenSuite(h: DriverHarness): void {
  const { target, test, fails } = h;
  const { describe, driver } = target;

  /** Another connection in this process: real SQLite lock contention, no child process needed. */
  const holdInProcess: LockHolder = async (path, begin) => {
    const holder = driver.open(path, { readOnly: false });
    holder.exec(begin);
    holder.exec("INSERT INTO t(v) VALUES ('held')");
    return async () => {
      holder.exec("ROLLBACK");
      holder.close();
    };
  };
  const holders: Array<[string, LockHolder]> = [["another connection", holdInProcess]];
  if (target.holdLock) holders.push(["another process", target.holdLock]);

  describe("BUSY", () => {
    for (const [who, holdLock] of holders) {
      test(`a write fails fast while ${who} holds BEGIN EXCLUSIVE (DELETE journal)`, async (c) => {
        const path = c.createDb("delete");
        const release = await holdLock(path, "BEGIN EXCLUSIVE");
        try {
          const db = c.connect(path);
          const started = performance.now();
          fails(() => db.prepare("INSERT INTO t(v) VALUES ('mine')").run(), "BUSY", {
            at: "statements",
            value: 5,
          });
          assert.ok(performance.now() - started < 1000, "the driver waited on a lock by itself");
          // An exclusive lock keeps readers out too in a rollback journal.
          fails(() => db.prepare("SELECT count(*) FROM t").get(), "BUSY");
        } finally {
          await release();
        }
      });

      test(`BEGIN IMMEDIATE fails while ${who} holds one (WAL), honouring busy_timeout; reads go on`, async (c) => {
        const path = c.createDb("wal");
        const release = await holdLock(path, "BEGIN IMMEDIATE");
        try {
          const db = c.connect(path);
          db.exec("PRAGMA busy_timeout = 0");
          fails(() => db.exec("BEGIN IMMEDIATE"), "BUSY", { at: "exec", value: 5 });
          assert.equal(db.prepare("SELECT count(*) AS n FROM t").get()?.n, 1);
          // busy_timeout set by SQL is honoured: the failure comes after the wait, not before.
          db.exec("PRAGMA busy_timeout = 200");
          const started = performance.now();
          fails(() => db.exec("BEGIN IMMEDIATE"), "BUSY");
          assert.ok(performance.now() - started >= 150, "busy_timeout was not honoured");
        } finally {
          await release();
        }
        // The lock is gone with the holder: the same write now succeeds.
        const db = c.connect(path);
        db.exec("BEGIN IMMEDIATE; INSERT INTO t(v) VALUES ('after'); COMMIT");
        assert.equal(db.prepare("SELECT count(*) AS n FROM t").get()?.n, 2);
      });
    }
  });

  test("an online backup of a database another connection holds exclusively fails with BUSY, not an empty copy", async (c) => {
    if (!driver.backup) {
      console.log(`[driver contract] ${target.name}: no online backup (core uses VACUUM INTO)`);
      return;
    }
    const path = c.createDb("delete");
    const db = c.connect(path);
    const release = await holdInProcess(path, "BEGIN EXCLUSIVE");
    try {
      const copy = c.file();
      await assert.rejects(driver.backup(db, copy, { pagesPerStep: 100 }), (error: unknown) => {
        assert.equal((error as { code?: unknown }).code, "SQLITE_BUSY", String(error));
        return true;
      });
    } finally {
      await release();
    }
    // Unlocked, the same backup copies the row.
    const copy = c.file();
    await driver.backup(db, copy, { pagesPerStep: 100 });
    assert.equal(c.connect(copy).prepare("SELECT count(*) AS n FROM t").get()?.n, 1);
  });

  describe("READONLY", () => {
    test("a write on a read-only connection fails with READONLY and changes nothing", (c) => {
      const db = c.connect(c.createDb(), true);
      fails(() => db.prepare("INSERT INTO t(v) VALUES ('no')").run(), "READONLY", {
        at: "statements",
        value: 8,
      });
      fails(() => db.exec("CREATE TABLE u(x)"), "READONLY");
      assert.equal(db.prepare("SELECT count(*) AS n FROM t").get()?.n, 1);
    });

    // Root ignores file modes, so there the case cannot be shown: say so instead of passing.
    // (runtime-node's readonly-file test runs the store-level refusal as the user "nobody".)
    if (ignoresFileModes()) {
      console.log(
        `[driver contract] ${target.name}: skipped "write to a 0444 file": running as root ignores file modes`,
      );
    } else {
      test("a write to a file without write permission", (c) => {
        const path = c.createDb();
        chmodSync(path, 0o444);
        assert.equal(canStillWrite(path), false, "this process can write a 0444 file");
        const db = c.connect(path);
        fails(() => db.prepare("INSERT INTO t(v) VALUES ('no')").run(), "READONLY");
      });
    }
  });

  describe("CANTOPEN", () => {
    test("a directory, read-write and read-only", (c) => {
      fails(() => c.connect(c.dir()), "CANTOPEN");
      // Read-only, SQLite itself reports SQLITE_IOERR_READ (EISDIR) or nothing; the driver says CANTOPEN.
      assert.match(fails(() => c.connect(c.dir(), true), "CANTOPEN").message, /directory/);
    });

    test("a missing file opened read-only fails and is not created", (c) => {
      const path = c.file("missing.db");
      fails(() => c.connect(path, true), "CANTOPEN", { at: "open", value: 14 });
      assert.equal(existsSync(path), false);
    });

    test("a missing parent directory fails and is not created", (c) => {
      const parent = join(c.dir(), "no", "such");
      // No `at`: better-sqlite3 checks the directory itself and says so in a plain TypeError.
      fails(() => c.connect(join(parent, "state.db")), "CANTOPEN", { value: 14 });
      assert.equal(existsSync(parent), false);
    });
  });

  describe("CONSTRAINT", () => {
    const cases: Array<[string, string, string, number]> = [
      ["UNIQUE", "INSERT INTO c(u, n) VALUES ('dup', 'x')", "SQLITE_CONSTRAINT_UNIQUE", 2067],
      [
        "PRIMARY KEY",
        "INSERT INTO c(id, u, n) VALUES (1, 'other', 'x')",
        "SQLITE_CONSTRAINT_PRIMARYKEY",
        1555,
      ],
      ["NOT NULL", "INSERT INTO c(u, n) VALUES ('fresh', NULL)", "SQLITE_CONSTRAINT_NOTNULL", 1299],
      ["CHECK", "INSERT INTO c(u, n, k) VALUES ('fresh', 'x', -1)", "SQLITE_CONSTRAINT_CHECK", 275],
      ["FOREIGN KEY", "INSERT INTO child(parent) VALUES ('nobody')", "SQLITE_CONSTRAINT_FOREIGNKEY", 787],
    ];
    for (const [what, sql, name, value] of cases) {
      test(`${what} violation`, (c) => {
        const db = c.connect(c.file("c.db"));
        db.exec(`
          PRAGMA foreign_keys = ON;
          CREATE TABLE c(id INTEGER PRIMARY KEY, u TEXT UNIQUE, n TEXT NOT NULL, k INTEGER CHECK (k IS NULL OR k >= 0));
          CREATE TABLE p(id TEXT PRIMARY KEY);
          CREATE TABLE child(id INTEGER PRIMARY KEY, parent TEXT REFERENCES p(id));
          INSERT INTO c(id, u, n) VALUES (1, 'dup', 'x');
        `);
        fails(() => db.prepare(sql).run(), "CONSTRAINT", { at: "statements", value, name });
        assert.equal(db.prepare("SELECT count(*) AS n FROM c").get()?.n, 1);
      });
    }
  });
}
