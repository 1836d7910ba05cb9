/** The driver contract: NOTADB, CORRUPT and CORRUPT_VTAB, provoked by damaging real files. */
import { readFileSync, writeFileSync } from "node:fs";
import type { SqliteError } from "@sessiondb/core";
import { type Context, caught, type DriverHarness, garbage } from "./driver-harness.js";
import { assert } from "./harness.js";

/** Register the damaged-file tests. */
export function corruptionSuite(h: DriverHarness): void {
  const { target, test, fails, check, extendedAt } = h;
  const { describe, driver } = target;
  describe("NOTADB", () => {
    test("a file of random bytes", (c) => {
      const path = c.file("random.db");
      writeFileSync(path, garbage(16 * 1024));
      // Bindings open lazily; the first read of the header fails.
      const db = c.connect(path);
      fails(() => db.prepare("SELECT count(*) FROM sqlite_master").get(), "NOTADB", {
        at: "statements",
        value: 26,
      });
    });
  });

  describe("CORRUPT", () => {
    test("b-tree pages overwritten with garbage: a full scan and integrity_check report CORRUPT", (c) => {
      const path = c.file("corrupt.db");
      const db = driver.open(path, { readOnly: false });
      db.exec("PRAGMA page_size = 4096; PRAGMA journal_mode = delete;");
      db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL); CREATE INDEX t_body ON t(body);");
      db.exec("BEGIN");
      const insert = db.prepare("INSERT INTO t(body) VALUES (?)");
      for (let i = 0; i < 5000; i++) insert.run(`row ${i} ${"x".repeat(150 + (i % 50))}`);
      db.exec("COMMIT");
      const pages = Number(db.prepare("PRAGMA page_count").get()?.page_count);
      db.close();
      assert.ok(pages > 100, `only ${pages} pages`);
      // Overwrite 20 pages in the middle of the file while no connection is open on it.
      const bytes = readFileSync(path);
      bytes.set(garbage(20 * 4096), Math.floor(pages / 2) * 4096);
      writeFileSync(path, bytes);
      const reopened = c.connect(path);
      fails(() => reopened.prepare("SELECT sum(length(body)) AS s FROM t").get(), "CORRUPT", {
        at: "statements",
        value: 11,
      });
      fails(() => reopened.prepare("SELECT count(*) FROM t").get(), "CORRUPT");
      fails(() => reopened.prepare("PRAGMA integrity_check").all(), "CORRUPT");
    });
  });

  describe("CORRUPT_VTAB", () => {
    /** An FTS5 table whose leaf blocks in x_data are overwritten in the file, b-tree intact. */
    const corruptFts = (c: Context): { path: string; blocks: number } => {
      const path = c.file("fts.db");
      const db = driver.open(path, { readOnly: false });
      // Small FTS5 pages keep every block inside one b-tree page, so its bytes can be found.
      db.exec("PRAGMA journal_mode = delete; CREATE VIRTUAL TABLE x USING fts5(body);");
      db.exec("INSERT INTO x(x, rank) VALUES ('pgsz', 1000)");
      db.exec("BEGIN");
      const insert = db.prepare("INSERT INTO x(body) VALUES (?)");
      for (let i = 0; i < 3000; i++) insert.run(`alpha beta gamma word${i} delta ${i % 7}`);
      db.exec("COMMIT");
      // Shadow tables are read-only (bindings run in defensive mode), so the damage is done to
      // the file: ids 1 and 10 are FTS5's averages and structure records; the rest are leaves.
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
      assert.ok(overwritten > 10, `only ${overwritten} blocks found in the file`);
      writeFileSync(path, bytes);
      return { path, blocks: blocks.length };
    };

    /**
     * FTS5 corruption is CORRUPT_VTAB (267). A message-only binding can tell it from b-tree
     * corruption only when SQLite's message names FTS5; where it does not
     * (`ftsCorruptionNamed: false`) it is CORRUPT with SQLite's generic text.
     */
    const checkFtsCorrupt = (thrown: unknown): SqliteError => {
      if (extendedAt.statements) return check(thrown, "CORRUPT_VTAB", { at: "statements", value: 267 });
      if (target.ftsCorruptionNamed ?? true) {
        const named = check(thrown, "CORRUPT_VTAB");
        assert.match(named.message, /fts5/i);
        return named;
      }
      const generic = check(thrown, "CORRUPT");
      assert.doesNotMatch(generic.message, /fts5/i, "the message names FTS5: set ftsCorruptionNamed");
      return generic;
    };

    test("a MATCH over corrupt FTS5 leaves is CORRUPT_VTAB, and the b-tree itself is fine", (c) => {
      const { path, blocks } = corruptFts(c);
      const db = c.connect(path);
      const match = checkFtsCorrupt(
        caught(() => db.prepare("SELECT rowid FROM x WHERE x MATCH 'alpha'").all()),
      );
      if (extendedAt.statements) {
        assert.match(match.message, /fts5/);
        fails(() => db.exec("INSERT INTO x(x) VALUES ('integrity-check')"), "CORRUPT_VTAB");
        // integrity_check does not throw: it lists the FTS5 problem as a row.
        const rows = db.prepare("PRAGMA integrity_check").all();
        assert.match(rows.map((row) => Object.values(row)[0]).join("\n"), /fts5: corruption/);
      }
      // The b-tree is intact: the shadow table still reads end to end.
      assert.equal(db.prepare("SELECT count(*) AS n FROM x_data").get()?.n, blocks + 2);
    });

    test("writes succeed until FTS5 merges a corrupt segment, then fail with CORRUPT_VTAB", (c) => {
      const db = c.connect(corruptFts(c).path);
      const insert = db.prepare("INSERT INTO x(body) VALUES (?)");
      let accepted = 0;
      let failure: unknown;
      for (; accepted < 200; accepted++) {
        try {
          insert.run(`alpha later ${accepted}`);
        } catch (error) {
          failure = error;
          break;
        }
      }
      // The first writes only add new segments; an automerge then reads the damaged ones.
      assert.ok(accepted > 0, "the first write already failed");
      assert.ok(failure !== undefined, "200 writes over corrupt segments all succeeded");
      checkFtsCorrupt(failure);
    });
  });
}
