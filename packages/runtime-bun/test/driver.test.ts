/**
 * The bun:sqlite driver contract: every error class core depends on is provoked for real (real
 * files, a real lock-holding child process, real corruption) and the normalized `SqliteError`
 * is checked, with the extended code Bun reports.
 */
import { afterAll, afterEach, describe, expect, it } from "bun:test";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SqliteConnection, SqliteError, type SqliteResultCode } from "@sessiondb/core";
import { bunSqliteDriver, hasSecondStatement } from "../src/bun-sqlite.js";

const driver = bunSqliteDriver();
const dirs: string[] = [];
const open: SqliteConnection[] = [];

afterEach(() => {
  for (const connection of open.splice(0)) connection.close();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-bun-driver-"));
  dirs.push(dir);
  return dir;
}

function connect(path: string, readOnly = false): SqliteConnection {
  const connection = driver.open(path, { readOnly });
  open.push(connection);
  return connection;
}

/** A database with table t(id, v) and one row. */
function createDb(journal: "delete" | "wal" = "delete"): string {
  const path = join(tempDir(), "state.db");
  const db = driver.open(path, { readOnly: false });
  db.exec(`PRAGMA journal_mode = ${journal}`);
  db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
  db.prepare("INSERT INTO t(v) VALUES (?)").run("first");
  db.close();
  return path;
}

function expectSqliteError(fn: () => unknown, code: SqliteResultCode, extended?: number): SqliteError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(SqliteError);
  const error = thrown as SqliteError;
  expect(error.resultCode).toBe(code);
  expect(error.code).toBe(`SQLITE_${code}`);
  if (extended !== undefined) expect(error.extendedCode).toBe(extended);
  return error;
}

/** Deterministic garbage (xorshift32), so a failure reproduces byte for byte. */
function garbage(length: number, seed = 0x5e5510db): Uint8Array {
  const bytes = new Uint8Array(length);
  let s = seed | 0;
  for (let i = 0; i < length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    bytes[i] = s & 0xff;
  }
  return bytes;
}

/** A lock holder in another Bun process: prints "locked" once it holds `begin`, rolls back when stdin closes. */
const HOLDER = `
import { Database } from "bun:sqlite";
const [path, begin] = process.argv.slice(2);
const db = new Database(path);
db.exec(begin);
db.exec("INSERT INTO t(v) VALUES ('held')");
process.stdout.write("locked\\n");
for await (const _ of process.stdin) {}
db.exec("ROLLBACK");
db.close();
`;

async function holdLock(path: string, begin: string): Promise<() => Promise<void>> {
  const script = join(tempDir(), "holder.ts");
  writeFileSync(script, HOLDER);
  const child = spawn(process.execPath, [script, path, begin], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      if (String(chunk).includes("locked")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`lock holder exited (${code}): ${stderr}`)));
  });
  return async () => {
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    child.stdin.end();
    await exited;
  };
}

describe("bun:sqlite seam", () => {
  it("run() returns numbers; get() of no row is undefined", () => {
    const db = connect(join(tempDir(), "a.db"));
    db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
    const result = db.prepare("INSERT INTO t(id, v) VALUES (?, ?)").run(41, "x");
    expect(result).toEqual({ changes: 1, lastInsertRowid: 41 });
    expect(typeof result.lastInsertRowid).toBe("number");
    expect(db.prepare("SELECT * FROM t WHERE id = ?").get(7)).toBeUndefined();
    expect(db.prepare("CREATE TABLE IF NOT EXISTS t(v)").get()).toBeUndefined();
    expect(db.prepare("SELECT * FROM t WHERE 0").all()).toEqual([]);
  });

  it("binds every SqlValue type positionally and reads it back", () => {
    const db = connect(join(tempDir(), "a.db"));
    const row = db
      .prepare("SELECT ? AS s, ? AS i, ? AS r, ? AS b, ? AS n, ? AS big")
      .get("é✓", 7, 1.5, new Uint8Array([1, 2, 255]), null, 9n);
    expect(row?.s).toBe("é✓");
    expect(row?.i).toBe(7);
    expect(row?.r).toBe(1.5);
    expect(Array.from(row?.b as Uint8Array)).toEqual([1, 2, 255]);
    expect(row?.n).toBeNull();
    expect(row?.big).toBe(9);
  });

  it("prepare() refuses a second statement but accepts trailing comments and trigger bodies", () => {
    const db = connect(join(tempDir(), "a.db"));
    expect(() => db.prepare("SELECT 1; SELECT 2")).toThrow(RangeError);
    expect(() => db.prepare("SELECT ';' AS a; DELETE FROM x")).toThrow(RangeError);
    expect(db.prepare("SELECT 1 AS one; -- trailing comment\n").get()?.one).toBe(1);
    expect(db.prepare("SELECT 'a;b' AS s, \"x;\" AS q /* ; */ ;").all).toBeDefined();
    db.exec("CREATE TABLE t(v)");
    db.prepare("CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; END;").run();
    expect(hasSecondStatement("CREATE TEMP TRIGGER x AFTER INSERT ON t BEGIN SELECT 1; END; SELECT 2")).toBe(
      true,
    );
  });

  it("adds no busy wait of its own; close() twice is harmless", () => {
    const db = driver.open(join(tempDir(), "a.db"), { readOnly: false });
    expect(db.prepare("PRAGMA busy_timeout").get()).toEqual({ timeout: 0 });
    db.close();
    expect(() => db.close()).not.toThrow();
  });

  it("reads invalid UTF-8 back with replacement characters (read-only open too)", () => {
    const path = createDb();
    connect(path).exec("INSERT INTO t(v) VALUES (CAST(x'41ff42' AS TEXT))");
    expect(connect(path, true).prepare("SELECT v FROM t WHERE id = 2").get()?.v).toBe("A\uFFFDB");
  });

  it("a syntax error is ERROR", () => {
    const error = expectSqliteError(() => connect(join(tempDir(), "a.db")).prepare("SELEC 1"), "ERROR", 1);
    expect(error.message).toMatch(/syntax error/);
  });
});

describe("bun:sqlite errors", () => {
  it("BUSY: a write fails fast while another process holds BEGIN EXCLUSIVE", async () => {
    const path = createDb("delete");
    const release = await holdLock(path, "BEGIN EXCLUSIVE");
    try {
      const db = connect(path);
      const started = performance.now();
      expectSqliteError(() => db.prepare("INSERT INTO t(v) VALUES ('mine')").run(), "BUSY", 5);
      expect(performance.now() - started).toBeLessThan(1000);
      expectSqliteError(() => db.prepare("SELECT count(*) FROM t").get(), "BUSY");
    } finally {
      await release();
    }
  });

  it("BUSY: BEGIN IMMEDIATE under another process's (WAL), honouring busy_timeout; reads go on", async () => {
    const path = createDb("wal");
    const release = await holdLock(path, "BEGIN IMMEDIATE");
    try {
      const db = connect(path);
      expectSqliteError(() => db.exec("BEGIN IMMEDIATE"), "BUSY", 5);
      expect(db.prepare("SELECT count(*) AS n FROM t").get()?.n).toBe(1);
      db.exec("PRAGMA busy_timeout = 200");
      const started = performance.now();
      expectSqliteError(() => db.exec("BEGIN IMMEDIATE"), "BUSY");
      expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    } finally {
      await release();
    }
    const db = connect(path);
    db.exec("BEGIN IMMEDIATE; INSERT INTO t(v) VALUES ('after'); COMMIT");
    expect(db.prepare("SELECT count(*) AS n FROM t").get()?.n).toBe(2);
  });

  it("READONLY: a write on a read-only connection, and on a file without write permission", () => {
    const path = createDb();
    const reader = connect(path, true);
    expectSqliteError(() => reader.prepare("INSERT INTO t(v) VALUES ('no')").run(), "READONLY", 8);
    expectSqliteError(() => reader.exec("CREATE TABLE u(x)"), "READONLY");
    expect(reader.prepare("SELECT count(*) AS n FROM t").get()?.n).toBe(1);
    if (process.getuid?.() !== 0) {
      chmodSync(path, 0o444);
      const writer = connect(path);
      expectSqliteError(() => writer.prepare("INSERT INTO t(v) VALUES ('no')").run(), "READONLY");
    }
  });

  it("CANTOPEN: a missing file read-only (not created), a missing directory, a directory", () => {
    const missing = join(tempDir(), "missing.db");
    expectSqliteError(() => connect(missing, true), "CANTOPEN", 14);
    expect(existsSync(missing)).toBe(false);
    const parent = join(tempDir(), "no", "such");
    expectSqliteError(() => connect(join(parent, "state.db")), "CANTOPEN", 14);
    expect(existsSync(parent)).toBe(false);
    expectSqliteError(() => connect(tempDir()), "CANTOPEN");
    expect(expectSqliteError(() => connect(tempDir(), true), "CANTOPEN").message).toMatch(/directory/);
  });

  const constraints: Array<[string, string, number]> = [
    ["UNIQUE", "INSERT INTO c(u, n) VALUES ('dup', 'x')", 2067],
    ["PRIMARY KEY", "INSERT INTO c(id, u, n) VALUES (1, 'other', 'x')", 1555],
    ["NOT NULL", "INSERT INTO c(u, n) VALUES ('fresh', NULL)", 1299],
    ["CHECK", "INSERT INTO c(u, n, k) VALUES ('fresh', 'x', -1)", 275],
    ["FOREIGN KEY", "INSERT INTO child(parent) VALUES ('nobody')", 787],
  ];
  for (const [what, sql, extended] of constraints) {
    it(`CONSTRAINT: ${what}`, () => {
      const db = connect(join(tempDir(), "c.db"));
      db.exec(`
        PRAGMA foreign_keys = ON;
        CREATE TABLE c(id INTEGER PRIMARY KEY, u TEXT UNIQUE, n TEXT NOT NULL, k INTEGER CHECK (k IS NULL OR k >= 0));
        CREATE TABLE p(id TEXT PRIMARY KEY);
        CREATE TABLE child(id INTEGER PRIMARY KEY, parent TEXT REFERENCES p(id));
        INSERT INTO c(id, u, n) VALUES (1, 'dup', 'x');
      `);
      expectSqliteError(() => db.prepare(sql).run(), "CONSTRAINT", extended);
      expect(db.prepare("SELECT count(*) AS n FROM c").get()?.n).toBe(1);
    });
  }

  it("NOTADB: a file of random bytes", () => {
    const path = join(tempDir(), "random.db");
    writeFileSync(path, garbage(16 * 1024));
    expectSqliteError(() => connect(path).prepare("SELECT count(*) FROM sqlite_master").get(), "NOTADB", 26);
  });

  it("CORRUPT: b-tree pages overwritten with garbage", () => {
    const path = join(tempDir(), "corrupt.db");
    const db = driver.open(path, { readOnly: false });
    db.exec("PRAGMA page_size = 4096; PRAGMA journal_mode = delete;");
    db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL); CREATE INDEX t_body ON t(body);");
    db.exec("BEGIN");
    const insert = db.prepare("INSERT INTO t(body) VALUES (?)");
    for (let i = 0; i < 5000; i++) insert.run(`row ${i} ${"x".repeat(150 + (i % 50))}`);
    db.exec("COMMIT");
    const pages = Number(db.prepare("PRAGMA page_count").get()?.page_count);
    db.close();
    expect(pages).toBeGreaterThan(100);
    // Overwrite 20 pages in the middle of the file while no connection is open on it.
    const bytes = readFileSync(path);
    bytes.set(garbage(20 * 4096), Math.floor(pages / 2) * 4096);
    writeFileSync(path, bytes);
    const reopened = connect(path);
    expectSqliteError(() => reopened.prepare("SELECT sum(length(body)) AS s FROM t").get(), "CORRUPT", 11);
    expectSqliteError(() => reopened.prepare("PRAGMA integrity_check").all(), "CORRUPT");
  });

  it("CORRUPT_VTAB: a MATCH over FTS5 leaves overwritten in the file", () => {
    const path = join(tempDir(), "fts.db");
    const db = driver.open(path, { readOnly: false });
    // Small FTS5 pages keep every block inside one b-tree page, so its bytes can be found.
    db.exec("PRAGMA journal_mode = delete; CREATE VIRTUAL TABLE x USING fts5(body);");
    db.exec("INSERT INTO x(x, rank) VALUES ('pgsz', 1000)");
    db.exec("BEGIN");
    const insert = db.prepare("INSERT INTO x(body) VALUES (?)");
    for (let i = 0; i < 3000; i++) insert.run(`alpha beta gamma word${i} delta ${i % 7}`);
    db.exec("COMMIT");
    // Ids 1 and 10 are FTS5's averages and structure records; the rest are leaves.
    const blocks = db.prepare("SELECT block FROM x_data WHERE id > 10").all();
    db.close();
    const bytes = readFileSync(path);
    let overwritten = 0;
    for (const { block } of blocks) {
      const at = bytes.indexOf(block as Uint8Array);
      if (at < 0) continue;
      const junk = garbage((block as Uint8Array).length, overwritten + 1);
      junk.fill(0xff, 0, 4); // leaf header offsets past the end: unmistakably corrupt
      bytes.set(junk, at);
      overwritten++;
    }
    expect(overwritten).toBeGreaterThan(10);
    writeFileSync(path, bytes);
    const reopened = connect(path);
    expectSqliteError(
      () => reopened.prepare("SELECT rowid FROM x WHERE x MATCH 'alpha'").all(),
      "CORRUPT_VTAB",
      267,
    );
    // The b-tree itself is intact: the shadow table still reads end to end.
    expect(reopened.prepare("SELECT count(*) AS n FROM x_data").get()?.n).toBe(blocks.length + 2);
  });

  it("programming errors pass through unclassified", () => {
    const db = driver.open(join(tempDir(), "a.db"), { readOnly: false });
    db.close();
    let thrown: unknown;
    try {
      db.exec("SELECT 1");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(SqliteError);
  });
});
