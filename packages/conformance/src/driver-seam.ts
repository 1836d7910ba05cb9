/** The driver contract: the seam itself (values, statements, close, defaults). */
import { SqliteError } from "@sessiondb/core";
import { caught, type DriverHarness } from "./driver-harness.js";
import { assert } from "./harness.js";

/** Register the seam tests. */
export function seamSuite(h: DriverHarness): void {
  const { target, test, fails, check } = h;
  const { describe, driver } = target;
  describe("the seam", () => {
    test("reports its name", () => {
      assert.equal(driver.name, target.driverName ?? target.name);
    });

    test("run() returns numbers, including rowids past 2^31; get() of no row is undefined", (c) => {
      const db = c.connect(c.file());
      db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
      const result = db.prepare("INSERT INTO t(id, v) VALUES (?, ?)").run(41, "x");
      assert.deepEqual(result, { changes: 1, lastInsertRowid: 41 });
      assert.equal(typeof result.lastInsertRowid, "number");
      const big = 2 ** 40 + 7;
      assert.deepEqual(db.prepare("INSERT INTO t(id, v) VALUES (?, ?)").run(big, "y"), {
        changes: 1,
        lastInsertRowid: big,
      });
      assert.equal(db.prepare("SELECT id FROM t WHERE v = 'y'").get()?.id, big);
      assert.equal(db.prepare("UPDATE t SET v = ? WHERE id = ?").run("z", 41).changes, 1);
      assert.equal(db.prepare("SELECT * FROM t WHERE id = ?").get(7), undefined);
      assert.deepEqual(db.prepare("SELECT * FROM t WHERE 0").all(), []);
    });

    test("binds every SqlValue type positionally and reads text back as text (no JSON parsing)", (c) => {
      const db = c.connect(c.file());
      const row = db
        .prepare("SELECT ? AS s, ? AS i, ? AS r, ? AS b, ? AS n, ? AS big, json('{\"a\":1}') AS j")
        .get("é✓", 7, 1.5, new Uint8Array([1, 2, 255]), null, 9n);
      assert.equal(row?.s, "é✓");
      assert.equal(row?.i, 7);
      assert.equal(row?.r, 1.5);
      assert.ok(row?.b instanceof Uint8Array, `a blob reads back as ${String(row?.b)}`);
      assert.deepEqual(Array.from(row?.b as Uint8Array), [1, 2, 255]);
      assert.equal(row?.n, null);
      assert.equal(row?.big, 9);
      assert.equal(row?.j, '{"a":1}');
    });

    test("an integral number past 64-bit integers is stored as its value or refused, never wrapped", (c) => {
      const db = c.connect(c.file());
      for (const value of [1e20, 2 ** 63, -(2 ** 64)]) {
        let stored: unknown;
        const thrown = caught(() => {
          stored = db.prepare("SELECT ? AS v").get(value)?.v;
        });
        // REAL where the binding binds doubles (compared through Number, whatever the type).
        if (thrown === undefined) assert.equal(Number(stored), value, `${value} was stored as ${stored}`);
        else assert.ok(thrown instanceof RangeError, `${value}: ${String(thrown)}`);
      }
    });

    test("a row has a key per result column, in order; a repeated name keeps the last value", (c) => {
      const db = c.connect(c.file());
      db.exec("CREATE TABLE t(a, b)");
      db.exec("INSERT INTO t VALUES (1, 'one'), (2, 'two')");
      const statement = db.prepare("SELECT b AS name, a AS n, a * 10 AS n, upper(b) FROM t ORDER BY a");
      // Twice: a driver that builds rows itself must keep every call's rows right.
      for (let round = 0; round < 2; round++) {
        const rows = statement.all();
        assert.deepEqual(
          rows.map((row) => Object.entries(row)),
          [
            [
              ["name", "one"],
              ["n", 10],
              ["upper(b)", "ONE"],
            ],
            [
              ["name", "two"],
              ["n", 20],
              ["upper(b)", "TWO"],
            ],
          ],
        );
        assert.deepEqual(Object.entries(statement.get() ?? {}), Object.entries(rows[0] ?? {}));
      }
    });

    test("get() and all() on a statement without rows run it and return nothing", (c) => {
      const db = c.connect(c.file());
      db.exec("CREATE TABLE t(v TEXT)");
      assert.equal(db.prepare("INSERT INTO t(v) VALUES (?)").get("a"), undefined);
      assert.deepEqual(db.prepare("INSERT INTO t(v) VALUES (?)").all("b"), []);
      assert.equal(db.prepare("CREATE TABLE IF NOT EXISTS t(v)").get(), undefined);
      assert.equal(db.prepare("SELECT count(*) AS n FROM t").get()?.n, 2);
    });

    test("prepare() refuses more than one statement instead of dropping the rest", (c) => {
      const db = c.connect(c.file());
      assert.throws(() => db.prepare("SELECT 1; SELECT 2"), RangeError);
      assert.throws(() => db.prepare("SELECT ';' AS a; DELETE FROM x"), RangeError);
      assert.equal(db.prepare("SELECT 1 AS one; -- trailing comment\n").get()?.one, 1);
      assert.equal(db.prepare("SELECT 'a;b' AS s /* ; */ ;").get()?.s, "a;b");
      db.exec("CREATE TABLE t(v)");
      db.prepare("CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; END;").run();
    });

    test("close() twice is harmless", (c) => {
      const db = driver.open(c.file(), { readOnly: false });
      db.close();
      db.close();
    });

    test("adds no busy wait of its own, read-write or read-only", (c) => {
      const file = c.file();
      const db = c.connect(file);
      assert.equal(Number(db.prepare("PRAGMA busy_timeout").get()?.timeout), 0);
      db.exec("CREATE TABLE t(v)");
      const reader = c.connect(file, true);
      assert.equal(Number(reader.prepare("PRAGMA busy_timeout").get()?.timeout), 0, "read-only");
    });

    const fromBuild = target.dqsFromBuild === true;
    test(`double-quoted string literals are ${fromBuild ? "as the SQLite build has them" : "off"}`, (c) => {
      const db = c.connect(c.file());
      // With DQS on, a misspelt column "nosuch" silently becomes the string 'nosuch'.
      const misspelt = () => db.prepare('SELECT "nosuch" AS s').get();
      const error = caught(misspelt);
      if (fromBuild && error === undefined) {
        console.log(`[driver contract] ${target.name}: double-quoted strings are on in this SQLite build`);
      } else {
        check(error, "ERROR");
      }
    });

    test("reads invalid UTF-8 back with replacement characters (read-only open too)", (c) => {
      const path = c.createDb();
      c.connect(path).exec("INSERT INTO t(v) VALUES (CAST(x'41ff42' AS TEXT))");
      assert.equal(c.connect(path, true).prepare("SELECT v FROM t WHERE id = 2").get()?.v, "A\uFFFDB");
    });

    test("a syntax error is ERROR, not a crash", (c) => {
      const db = c.connect(c.file());
      const error = fails(() => db.prepare("SELEC 1"), "ERROR", { at: "statements", value: 1 });
      assert.match(error.message, /syntax error/);
    });

    test("programming errors (use after close) pass through unclassified", (c) => {
      const db = driver.open(c.file(), { readOnly: false });
      db.close();
      let thrown: unknown;
      try {
        db.exec("SELECT 1");
      } catch (error) {
        thrown = error;
      }
      assert.ok(thrown instanceof Error, "exec after close must throw");
      assert.ok(!(thrown instanceof SqliteError), `classified as ${String(thrown)}`);
    });
  });
}
