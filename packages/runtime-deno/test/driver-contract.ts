/**
 * The driver contract for Deno's drivers, under `deno test` with node:test's describe/it: every
 * error class core depends on is provoked for real (real files, a real lock-holding child
 * process, real corruption) and the normalized `SqliteError` is checked.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, describe, it } from "node:test";
import {
  type SqliteConnection,
  type SqliteDriver,
  SqliteError,
  type SqliteResultCode,
} from "@sessiondb/core";

/** What a driver reports as its extended code when it reports one (node:sqlite does; @db/sqlite mostly not). */
export interface ContractOptions {
  /** The driver reports extended result codes for statement errors. */
  extendedCodes: boolean;
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

/** The lock holder: another Deno process (node:sqlite) — POSIX locks are per process, whatever the library. */
const HOLDER = `
import { DatabaseSync } from "node:sqlite";
const [path, begin] = Deno.args;
const db = new DatabaseSync(path);
db.exec(begin);
db.exec("INSERT INTO t(v) VALUES ('held')");
await Deno.stdout.write(new TextEncoder().encode("locked\\n"));
for await (const _ of Deno.stdin.readable) {}
db.exec("ROLLBACK");
db.close();
`;

async function holdLock(dir: string, path: string, begin: string): Promise<() => Promise<void>> {
  const script = join(dir, "holder.ts");
  writeFileSync(script, HOLDER);
  // Deno.Command, not node:child_process: the latter copies the environment (needs --allow-env).
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", `--allow-read=${dir}`, `--allow-write=${dir}`, script, path, begin],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("locked")) {
    const { value, done } = await reader.read();
    if (done) {
      const stderr = await new Response(child.stderr).text();
      throw new Error(`lock holder exited before locking: ${stderr}`);
    }
    seen += value;
  }
  return async () => {
    await child.stdin.close();
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    await child.stderr.cancel();
    await child.status;
  };
}

/** Register the contract for one driver. */
export function driverContract(name: string, driver: SqliteDriver, options: ContractOptions): void {
  const dirs: string[] = [];
  const open: SqliteConnection[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "sessiondb-deno-driver-"));
    dirs.push(dir);
    return dir;
  };
  const connect = (path: string, readOnly = false): SqliteConnection => {
    const connection = driver.open(path, { readOnly });
    open.push(connection);
    return connection;
  };
  const createDb = (journal: "delete" | "wal" = "delete"): string => {
    const path = join(tempDir(), "state.db");
    const db = driver.open(path, { readOnly: false });
    db.exec(`PRAGMA journal_mode = ${journal}`);
    db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
    db.prepare("INSERT INTO t(v) VALUES (?)").run("first");
    db.close();
    return path;
  };
  const expectSqliteError = (fn: () => unknown, code: SqliteResultCode, extended?: number): SqliteError => {
    let thrown: unknown;
    try {
      fn();
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown instanceof SqliteError, `expected SQLITE_${code}, got ${String(thrown)}`);
    assert.equal(thrown.resultCode, code, thrown.message);
    assert.equal(thrown.code, `SQLITE_${code}`);
    if (extended !== undefined && options.extendedCodes) assert.equal(thrown.extendedCode, extended);
    return thrown;
  };

  describe(`${name} driver contract`, () => {
    afterEach(() => {
      for (const connection of open.splice(0)) connection.close();
    });
    after(() => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    it("run() returns numbers, including rowids past 2^31; get() of no row is undefined", () => {
      const db = connect(join(tempDir(), "a.db"));
      db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
      assert.deepEqual(db.prepare("INSERT INTO t(id, v) VALUES (?, ?)").run(41, "x"), {
        changes: 1,
        lastInsertRowid: 41,
      });
      const big = 2 ** 40 + 7;
      assert.deepEqual(db.prepare("INSERT INTO t(id, v) VALUES (?, ?)").run(big, "y"), {
        changes: 1,
        lastInsertRowid: big,
      });
      assert.equal(db.prepare("SELECT id FROM t WHERE v = 'y'").get()?.id, big);
      assert.equal(db.prepare("SELECT * FROM t WHERE id = ?").get(7), undefined);
      assert.deepEqual(db.prepare("SELECT * FROM t WHERE 0").all(), []);
    });

    it("binds every SqlValue type positionally and reads text back as text (no JSON parsing)", () => {
      const db = connect(join(tempDir(), "a.db"));
      const row = db
        .prepare("SELECT ? AS s, ? AS i, ? AS r, ? AS b, ? AS n, ? AS big, json('{\"a\":1}') AS j")
        .get("é✓", 7, 1.5, new Uint8Array([1, 2, 255]), null, 9n);
      assert.equal(row?.s, "é✓");
      assert.equal(row?.i, 7);
      assert.equal(row?.r, 1.5);
      assert.deepEqual(Array.from(row?.b as Uint8Array), [1, 2, 255]);
      assert.equal(row?.n, null);
      assert.equal(row?.big, 9);
      assert.equal(row?.j, '{"a":1}');
    });

    it("prepare() refuses a second statement, accepts a trailing comment", () => {
      const db = connect(join(tempDir(), "a.db"));
      assert.throws(() => db.prepare("SELECT 1; SELECT 2"), RangeError);
      assert.equal(db.prepare("SELECT 1 AS one; -- trailing comment\n").get()?.one, 1);
    });

    it("adds no busy wait of its own; close() twice is harmless", () => {
      const db = driver.open(join(tempDir(), "a.db"), { readOnly: false });
      assert.equal(Number(db.prepare("PRAGMA busy_timeout").get()?.timeout), 0);
      db.close();
      db.close();
    });

    it("reads invalid UTF-8 back with replacement characters (read-only open too)", () => {
      const path = createDb();
      connect(path).exec("INSERT INTO t(v) VALUES (CAST(x'41ff42' AS TEXT))");
      assert.equal(connect(path, true).prepare("SELECT v FROM t WHERE id = 2").get()?.v, "A\uFFFDB");
    });

    it("a syntax error is ERROR", () => {
      const error = expectSqliteError(() => connect(join(tempDir(), "a.db")).prepare("SELEC 1"), "ERROR", 1);
      assert.match(error.message, /syntax error/);
    });

    it("BUSY: a write fails fast while another process holds BEGIN EXCLUSIVE", async () => {
      const path = createDb("delete");
      const release = await holdLock(dirs.at(-1) as string, path, "BEGIN EXCLUSIVE");
      try {
        const db = connect(path);
        const started = performance.now();
        expectSqliteError(() => db.prepare("INSERT INTO t(v) VALUES ('mine')").run(), "BUSY", 5);
        assert.ok(performance.now() - started < 1000);
        expectSqliteError(() => db.prepare("SELECT count(*) FROM t").get(), "BUSY");
      } finally {
        await release();
      }
    });

    it("BUSY: BEGIN IMMEDIATE under another process's (WAL) honours busy_timeout; reads go on", async () => {
      const path = createDb("wal");
      const release = await holdLock(dirs.at(-1) as string, path, "BEGIN IMMEDIATE");
      try {
        const db = connect(path);
        // No extended code asserted: Deno's node:sqlite gives exec() errors only a message.
        expectSqliteError(() => db.exec("BEGIN IMMEDIATE"), "BUSY");
        assert.equal(db.prepare("SELECT count(*) AS n FROM t").get()?.n, 1);
        db.exec("PRAGMA busy_timeout = 200");
        const started = performance.now();
        expectSqliteError(() => db.exec("BEGIN IMMEDIATE"), "BUSY");
        assert.ok(performance.now() - started >= 150);
      } finally {
        await release();
      }
      const db = connect(path);
      db.exec("BEGIN IMMEDIATE; INSERT INTO t(v) VALUES ('after'); COMMIT");
      assert.equal(db.prepare("SELECT count(*) AS n FROM t").get()?.n, 2);
    });

    it("READONLY: a write on a read-only connection changes nothing", () => {
      const reader = connect(createDb(), true);
      expectSqliteError(() => reader.prepare("INSERT INTO t(v) VALUES ('no')").run(), "READONLY", 8);
      expectSqliteError(() => reader.exec("CREATE TABLE u(x)"), "READONLY");
      assert.equal(reader.prepare("SELECT count(*) AS n FROM t").get()?.n, 1);
    });

    it("CANTOPEN: a missing file read-only (not created), a missing directory, a directory", () => {
      const missing = join(tempDir(), "missing.db");
      expectSqliteError(() => connect(missing, true), "CANTOPEN");
      assert.equal(existsSync(missing), false);
      const parent = join(tempDir(), "no", "such");
      expectSqliteError(() => connect(join(parent, "state.db")), "CANTOPEN");
      assert.equal(existsSync(parent), false);
      expectSqliteError(() => connect(tempDir()), "CANTOPEN");
      assert.match(expectSqliteError(() => connect(tempDir(), true), "CANTOPEN").message, /directory/);
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
        assert.equal(db.prepare("SELECT count(*) AS n FROM c").get()?.n, 1);
      });
    }

    it("NOTADB: a file of random bytes", () => {
      const path = join(tempDir(), "random.db");
      writeFileSync(path, garbage(16 * 1024));
      expectSqliteError(
        () => connect(path).prepare("SELECT count(*) FROM sqlite_master").get(),
        "NOTADB",
        26,
      );
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
      assert.ok(pages > 100);
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
      assert.ok(overwritten > 10);
      writeFileSync(path, bytes);
      const reopened = connect(path);
      const match = () => reopened.prepare("SELECT rowid FROM x WHERE x MATCH 'alpha'").all();
      if (options.extendedCodes) {
        expectSqliteError(match, "CORRUPT_VTAB", 267);
      } else {
        // Message-only bindings tell FTS corruption apart only when SQLite's message names FTS5
        // (it does in 3.53; 3.40 says just "database disk image is malformed"). Otherwise it
        // classifies as CORRUPT, and core fails closed (sticky read-only) instead of open.
        let thrown: unknown;
        try {
          match();
        } catch (error) {
          thrown = error;
        }
        assert.ok(thrown instanceof SqliteError);
        const namesFts = /fts5/i.test(thrown.message);
        assert.equal(thrown.resultCode, namesFts ? "CORRUPT_VTAB" : "CORRUPT", thrown.message);
        if (!namesFts)
          console.log(`[driver-contract] ${name}: FTS5 corruption reads as CORRUPT ("${thrown.message}")`);
      }
      assert.equal(reopened.prepare("SELECT count(*) AS n FROM x_data").get()?.n, blocks.length + 2);
    });
  });
}
