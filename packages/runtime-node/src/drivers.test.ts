/**
 * The driver contract, run once per driver that loads in this Node: every error class core
 * depends on is provoked for real (real files, real child processes, real corruption) and the
 * normalized `SqliteError` is checked. Drivers that do not load are skipped with the reason;
 * a driver named in SESSIONDB_REQUIRE_DRIVERS that does not load fails the run instead.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  type SqliteConnection,
  type SqliteDriver,
  SqliteError,
  type SqliteResultCode,
} from "@sessiondb/core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { betterSqlite3Driver } from "./better-sqlite3.js";
import { nodeSqliteDriver } from "./node-sqlite.js";

const required = new Set((process.env.SESSIONDB_REQUIRE_DRIVERS ?? "").split(",").filter(Boolean));

/** A fresh temporary directory per test, removed afterwards. */
function useTempDirs(): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), "sessiondb-driver-"));
    dirs.push(dir);
    return dir;
  };
}

/** Run `fn`, expect a normalized SqliteError with `code`, and return it. */
function expectSqliteError(fn: () => unknown, code: SqliteResultCode): SqliteError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected SQLITE_${code}, got no error`).toBeDefined();
  expect(thrown, `expected a SqliteError, got ${String(thrown)}`).toBeInstanceOf(SqliteError);
  const error = thrown as SqliteError;
  expect(error.resultCode, error.message).toBe(code);
  expect(error.code).toBe(`SQLITE_${code}`);
  return error;
}

/** The extended code as either binding spells it: a name (better-sqlite3) or a number (node:sqlite). */
function expectExtended(error: SqliteError, name: string, value: number): void {
  expect([name, value], `extendedCode ${String(error.extendedCode)}`).toContain(error.extendedCode);
}

/** Deterministic garbage (xorshift32), so a failure reproduces byte for byte. */
function garbage(length: number, seed = 0x5e55_10db): Buffer {
  const bytes = Buffer.alloc(length);
  let s = seed | 0;
  for (let i = 0; i < length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    bytes[i] = s & 0xff;
  }
  return bytes;
}

/**
 * A lock holder in a separate OS process, using the same binding as the driver under test.
 * It prints "locked" once its transaction holds the lock and rolls back when stdin closes.
 */
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

async function holdLock(path: string, binding: string, begin: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["-e", HOLDER, path, binding, begin], {
    cwd: process.cwd(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk) => {
      if (String(chunk).includes("locked")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`lock holder exited (${code}): ${stderr}`)));
  });
  return child;
}

async function release(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  child.stdin?.end();
  await exited;
}

/** Every behaviour core relies on, for one driver. */
export function driverContract(name: string, makeDriver: () => SqliteDriver): void {
  let driver: SqliteDriver | undefined;
  let unavailable = "";
  try {
    driver = makeDriver();
  } catch (error) {
    unavailable = error instanceof Error ? error.message : String(error);
  }

  if (!driver) {
    if (required.has(name)) {
      describe(name, () => {
        it("is available (required by this test run)", () => {
          throw new Error(`${name} is required in this run but did not load: ${unavailable}`);
        });
      });
    } else {
      console.info(`[drivers.test] skipping ${name} on Node ${process.versions.node}: ${unavailable}`);
      describe.skip(`${name} (unavailable on Node ${process.versions.node}: ${unavailable})`, () => {
        it("skipped", () => {});
      });
    }
    return;
  }
  const d = driver;
  console.info(`[drivers.test] testing ${name} on Node ${process.versions.node}`);

  describe(`${name} on Node ${process.versions.node}`, () => {
    const tempDir = useTempDirs();
    const open: SqliteConnection[] = [];
    const connect = (path: string, readOnly = false): SqliteConnection => {
      const connection = d.open(path, { readOnly });
      open.push(connection);
      return connection;
    };
    afterEach(() => {
      for (const connection of open.splice(0)) connection.close();
    });

    /** A DELETE-journal database with table t(id, v). */
    const createDb = (journal: "delete" | "wal" = "delete"): string => {
      const path = join(tempDir(), "state.db");
      const db = d.open(path, { readOnly: false });
      db.exec(`PRAGMA journal_mode = ${journal}`);
      db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
      db.prepare("INSERT INTO t(v) VALUES (?)").run("first");
      db.close();
      return path;
    };

    describe("the seam", () => {
      it("reports its name", () => {
        expect(d.name).toBe(name);
      });

      it("run() returns numbers for changes and lastInsertRowid", () => {
        const db = connect(join(tempDir(), "a.db"));
        db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
        const result = db.prepare("INSERT INTO t(id, v) VALUES (?, ?)").run(41, "x");
        expect(result).toEqual({ changes: 1, lastInsertRowid: 41 });
        expect(typeof result.lastInsertRowid).toBe("number");
        expect(db.prepare("UPDATE t SET v = ? WHERE id > ?").run("y", 0).changes).toBe(1);
      });

      it("binds positional parameters of every SqlValue type and reads them back", () => {
        const db = connect(join(tempDir(), "a.db"));
        const row = db
          .prepare("SELECT ? AS s, ? AS i, ? AS r, ? AS b, ? AS n, ? AS big")
          .get("é✓", 7, 1.5, new Uint8Array([1, 2, 255]), null, 9n);
        expect(row?.s).toBe("é✓");
        expect(row?.i).toBe(7);
        expect(row?.r).toBe(1.5);
        expect(row?.b).toBeInstanceOf(Uint8Array);
        expect(Array.from(row?.b as Uint8Array)).toEqual([1, 2, 255]);
        expect(row?.n).toBeNull();
        expect(row?.big).toBe(9);
      });

      it("get() and all() on a statement without rows run it and return nothing", () => {
        const db = connect(join(tempDir(), "a.db"));
        db.exec("CREATE TABLE t(v TEXT)");
        expect(db.prepare("INSERT INTO t(v) VALUES (?)").get("a")).toBeUndefined();
        expect(db.prepare("INSERT INTO t(v) VALUES (?)").all("b")).toEqual([]);
        expect(db.prepare("SELECT count(*) AS n FROM t").get()?.n).toBe(2);
      });

      it("prepare() refuses more than one statement instead of dropping the rest", () => {
        const db = connect(join(tempDir(), "a.db"));
        expect(() => db.prepare("SELECT 1; SELECT 2")).toThrow();
        expect(db.prepare("SELECT 1 AS one; -- trailing comment\n").get()?.one).toBe(1);
      });

      it("close() twice is harmless", () => {
        const db = d.open(join(tempDir(), "a.db"), { readOnly: false });
        db.close();
        expect(() => db.close()).not.toThrow();
      });

      it("adds no busy wait of its own and has double-quoted string literals off", () => {
        const db = connect(join(tempDir(), "a.db"));
        expect(db.prepare("PRAGMA busy_timeout").get()).toEqual({ timeout: 0 });
        db.exec("CREATE TABLE t(v TEXT)");
        // With DQS on, "nosuch" would silently become the string 'nosuch'.
        expectSqliteError(() => db.prepare('SELECT "nosuch" FROM t').all(), "ERROR");
      });

      it("reads invalid UTF-8 back with replacement characters (read-only open too)", () => {
        const path = createDb();
        const writer = connect(path);
        writer.exec("INSERT INTO t(v) VALUES (CAST(x'41ff42' AS TEXT))");
        const reader = connect(path, true);
        expect(reader.prepare("SELECT v FROM t WHERE id = 2").get()?.v).toBe("A\uFFFDB");
      });

      it("a syntax error is ERROR, not a crash", () => {
        const db = connect(join(tempDir(), "a.db"));
        const error = expectSqliteError(() => db.prepare("SELEC 1"), "ERROR");
        expect(error.message).toMatch(/syntax error/);
      });
    });

    describe("BUSY", () => {
      it("a write fails fast while another process holds BEGIN EXCLUSIVE (DELETE journal)", async () => {
        const path = createDb("delete");
        const holder = await holdLock(path, name, "BEGIN EXCLUSIVE");
        try {
          const db = connect(path);
          const started = performance.now();
          const error = expectSqliteError(() => db.prepare("INSERT INTO t(v) VALUES ('mine')").run(), "BUSY");
          expect(performance.now() - started).toBeLessThan(1000);
          expectExtended(error, "SQLITE_BUSY", 5);
          // An exclusive lock keeps readers out too in a rollback journal.
          expectSqliteError(() => db.prepare("SELECT count(*) FROM t").get(), "BUSY");
        } finally {
          await release(holder);
        }
      });

      it("BEGIN IMMEDIATE fails with BUSY while another process holds one (WAL); reads go on", async () => {
        const path = createDb("wal");
        const holder = await holdLock(path, name, "BEGIN IMMEDIATE");
        try {
          const db = connect(path);
          db.exec("PRAGMA busy_timeout = 0");
          expectSqliteError(() => db.exec("BEGIN IMMEDIATE"), "BUSY");
          expect(db.prepare("SELECT count(*) AS n FROM t").get()?.n).toBe(1);
          // busy_timeout set by SQL is honoured: the failure comes after the wait, not before.
          db.exec("PRAGMA busy_timeout = 200");
          const started = performance.now();
          expectSqliteError(() => db.exec("BEGIN IMMEDIATE"), "BUSY");
          expect(performance.now() - started).toBeGreaterThanOrEqual(150);
        } finally {
          await release(holder);
        }
        // The lock is gone with the holder: the same write now succeeds.
        const db = connect(path);
        db.exec("BEGIN IMMEDIATE");
        db.prepare("INSERT INTO t(v) VALUES ('after')").run();
        db.exec("COMMIT");
        expect(db.prepare("SELECT count(*) AS n FROM t").get()?.n).toBe(2);
      });
    });

    describe("READONLY", () => {
      it("a write on a read-only connection fails with READONLY and changes nothing", () => {
        const path = createDb();
        const db = connect(path, true);
        const error = expectSqliteError(() => db.prepare("INSERT INTO t(v) VALUES ('no')").run(), "READONLY");
        expectExtended(error, "SQLITE_READONLY", 8);
        expectSqliteError(() => db.exec("CREATE TABLE u(x)"), "READONLY");
        expect(db.prepare("SELECT count(*) AS n FROM t").get()?.n).toBe(1);
      });
    });

    describe("CANTOPEN", () => {
      it("a directory, read-write and read-only", () => {
        const dir = tempDir();
        expectSqliteError(() => connect(dir), "CANTOPEN");
        // Read-only, SQLite itself reports SQLITE_IOERR_READ (EISDIR); the driver says CANTOPEN.
        const error = expectSqliteError(() => connect(dir, true), "CANTOPEN");
        expect(error.message).toMatch(/directory/);
      });

      it("a missing file opened read-only fails and is not created", () => {
        const path = join(tempDir(), "missing.db");
        const error = expectSqliteError(() => connect(path, true), "CANTOPEN");
        expectExtended(error, "SQLITE_CANTOPEN", 14);
        expect(existsSync(path)).toBe(false);
      });

      it("a missing parent directory fails and is not created", () => {
        const parent = join(tempDir(), "no", "such");
        expectSqliteError(() => connect(join(parent, "state.db")), "CANTOPEN");
        expect(existsSync(parent)).toBe(false);
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
      for (const [what, sql, extendedName, extendedValue] of cases) {
        it(`${what} violation`, () => {
          const db = connect(join(tempDir(), "c.db"));
          db.exec(`
            PRAGMA foreign_keys = ON;
            CREATE TABLE c(id INTEGER PRIMARY KEY, u TEXT UNIQUE, n TEXT NOT NULL, k INTEGER CHECK (k IS NULL OR k >= 0));
            CREATE TABLE p(id TEXT PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parent TEXT REFERENCES p(id));
            INSERT INTO c(id, u, n) VALUES (1, 'dup', 'x');
          `);
          const error = expectSqliteError(() => db.prepare(sql).run(), "CONSTRAINT");
          expectExtended(error, extendedName, extendedValue);
          expect(db.prepare("SELECT count(*) AS n FROM c").get()?.n).toBe(1);
        });
      }
    });

    describe("NOTADB", () => {
      it("a file of random bytes", () => {
        const path = join(tempDir(), "random.db");
        writeFileSync(path, garbage(16 * 1024));
        // Both bindings open lazily; the first read of the header fails.
        const error = expectSqliteError(
          () => connect(path).prepare("SELECT count(*) FROM sqlite_master").get(),
          "NOTADB",
        );
        expectExtended(error, "SQLITE_NOTADB", 26);
      });
    });

    describe("CORRUPT", () => {
      it("b-tree pages overwritten with garbage: a full scan and integrity_check report CORRUPT", () => {
        const path = join(tempDir(), "corrupt.db");
        const db = d.open(path, { readOnly: false });
        db.exec("PRAGMA page_size = 4096; PRAGMA journal_mode = delete;");
        db.exec(
          "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL); CREATE INDEX t_body ON t(body);",
        );
        db.exec("BEGIN");
        const insert = db.prepare("INSERT INTO t(body) VALUES (?)");
        for (let i = 0; i < 5000; i++) insert.run(`row ${i} ${"x".repeat(150 + (i % 50))}`);
        db.exec("COMMIT");
        const pages = Number(db.prepare("PRAGMA page_count").get()?.page_count);
        db.close();
        expect(pages).toBeGreaterThan(100);

        // Overwrite 20 pages in the middle of the file (no connection is open on it).
        const bytes = readFileSync(path);
        garbage(20 * 4096).copy(bytes, Math.floor(pages / 2) * 4096);
        writeFileSync(path, bytes);

        const reopened = connect(path);
        const error = expectSqliteError(
          () => reopened.prepare("SELECT sum(length(body)) AS s FROM t").get(),
          "CORRUPT",
        );
        expectExtended(error, "SQLITE_CORRUPT", 11);
        expectSqliteError(() => reopened.prepare("SELECT count(*) FROM t").get(), "CORRUPT");
        expectSqliteError(() => reopened.prepare("PRAGMA integrity_check").all(), "CORRUPT");
      });
    });

    describe("CORRUPT_VTAB", () => {
      /** An FTS5 table whose leaf blocks in x_data are overwritten in the file, b-tree intact. */
      const corruptFts = (): string => {
        const path = join(tempDir(), "fts.db");
        const db = d.open(path, { readOnly: false });
        // Small FTS5 pages keep every block inside one b-tree page, so its bytes can be found.
        db.exec("PRAGMA journal_mode = delete; CREATE VIRTUAL TABLE x USING fts5(body);");
        db.exec("INSERT INTO x(x, rank) VALUES ('pgsz', 1000)");
        db.exec("BEGIN");
        const insert = db.prepare("INSERT INTO x(body) VALUES (?)");
        for (let i = 0; i < 3000; i++) insert.run(`alpha beta gamma word${i} delta ${i % 7}`);
        db.exec("COMMIT");
        // Shadow tables are read-only (both bindings run in defensive mode), so the damage is
        // done to the file: ids 1 and 10 are FTS5's averages and structure records; the rest are leaves.
        const blocks = db.prepare("SELECT block FROM x_data WHERE id > 10").all();
        db.close();
        const bytes = readFileSync(path);
        let overwritten = 0;
        for (const { block } of blocks) {
          const at = bytes.indexOf(block as Uint8Array);
          if (at < 0) continue;
          const junk = garbage((block as Uint8Array).length, overwritten + 1);
          junk.fill(0xff, 0, 4); // leaf header offsets past the end: unmistakably corrupt
          junk.copy(bytes, at);
          overwritten++;
        }
        expect(overwritten).toBeGreaterThan(10);
        writeFileSync(path, bytes);
        return path;
      };

      it("a MATCH over corrupt FTS5 leaves is CORRUPT_VTAB, and the b-tree itself is fine", () => {
        const db = connect(corruptFts());
        const error = expectSqliteError(
          () => db.prepare("SELECT rowid FROM x WHERE x MATCH 'alpha'").all(),
          "CORRUPT_VTAB",
        );
        expectExtended(error, "SQLITE_CORRUPT_VTAB", 267);
        expect(error.message).toMatch(/fts5/);
        expectSqliteError(() => db.exec("INSERT INTO x(x) VALUES ('integrity-check')"), "CORRUPT_VTAB");
        // integrity_check does not throw: it lists the FTS5 problem as a row.
        const rows = db.prepare("PRAGMA integrity_check").all();
        expect(rows.map((row) => Object.values(row)[0]).join("\n")).toMatch(/fts5: corruption/);
      });

      it("writes succeed until FTS5 merges a corrupt segment, then fail with CORRUPT_VTAB", () => {
        const db = connect(corruptFts());
        const insert = db.prepare("INSERT INTO x(body) VALUES (?)");
        let error: unknown;
        let accepted = 0;
        for (; accepted < 200; accepted++) {
          try {
            insert.run(`alpha later ${accepted}`);
          } catch (caught) {
            error = caught;
            break;
          }
        }
        // The first writes only add new segments; an automerge then reads the damaged ones.
        expect(accepted).toBeGreaterThan(0);
        expect(error).toBeInstanceOf(SqliteError);
        expect((error as SqliteError).resultCode).toBe("CORRUPT_VTAB");
      });
    });
  });
}

driverContract("better-sqlite3", betterSqlite3Driver);
driverContract("node:sqlite", nodeSqliteDriver);

it("at least one driver loads in this Node", () => {
  const loaded = [betterSqlite3Driver, nodeSqliteDriver].filter((make) => {
    try {
      make();
      return true;
    } catch {
      return false;
    }
  });
  expect(loaded.length).toBeGreaterThan(0);
});
