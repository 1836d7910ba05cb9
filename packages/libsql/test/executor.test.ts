/**
 * The executor on a real sqld (HTTP and WebSocket) and on a file: URL: results, transactions
 * and savepoints, and what each failure becomes — server errors by result code, an unreachable
 * server and a lost connection as retryable BUSY, a lost COMMIT answer as IOERR that is not
 * retried, sqld's transaction timeout as retryable BUSY.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SqliteError } from "@sessiondb/core";
import { type SqldServer, sqldAvailability, startSqld } from "@sessiondb/test-sqld";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LibsqlExecutor, openLibsqlExecutor } from "../src/executor.js";
import { cuttingProxy } from "./support/cutting-proxy.js";

const available = sqldAvailability();
let server: SqldServer | undefined;
const folder = mkdtempSync(join(tmpdir(), "sessiondb-libsql-exec-"));
let tables = 0;

beforeAll(async () => {
  if (available.ok) server = await startSqld();
});
afterAll(async () => {
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<SqliteError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SqliteError);
  return error as SqliteError;
}

const targets: Array<[string, () => string]> = [
  ["file:", () => pathToFileURL(join(folder, "exec.db")).href],
  ["http:", () => server?.httpUrl as string],
  ["ws:", () => server?.wsUrl as string],
];

for (const [name, url] of targets) {
  const needsServer = name !== "file:";
  describe.skipIf(needsServer && !available.ok)(
    `executor over ${name}${!available.ok && needsServer ? ` (skipped: ${available.ok || available.reason})` : ""}`,
    () => {
      let db: LibsqlExecutor;
      let t: string;
      beforeAll(async () => {
        db = await openLibsqlExecutor(url());
        t = `t${++tables}`;
        await db.execute(
          `CREATE TABLE ${t} (id INTEGER PRIMARY KEY, x TEXT UNIQUE, b BLOB, r REAL, big INTEGER)`,
          [],
        );
      });
      afterAll(() => db.close());

      it("returns plain rows (TEXT past a NUL, BLOB as Uint8Array, exact integers), changes and rowids", async () => {
        const inserted = await db.execute(`INSERT INTO ${t} (x, b, r, big) VALUES (?, ?, ?, ?)`, [
          "a\u0000b",
          new Uint8Array([0, 1, 255]),
          1.5,
          2n ** 62n,
        ]);
        expect(inserted).toMatchObject({ changes: 1, lastInsertRowid: 1, rows: [] });
        const { rows } = await db.execute(`SELECT id, x, b, r, big, NULL AS n FROM ${t}`, []);
        // The native binding behind file: cuts TEXT at a NUL; Hrana carries it whole. The probe
        // at open says which, and core reads such text as hex where it must.
        const whole = name !== "file:";
        expect(db.readsTextWhole).toBe(whole);
        expect(rows).toEqual([
          {
            id: 1,
            x: whole ? "a\u0000b" : "a",
            b: new Uint8Array([0, 1, 255]),
            r: 1.5,
            big: 2n ** 62n,
            n: null,
          },
        ]);
        expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
      });

      it("commits a transaction whose body resolves and rolls back one that rejects; savepoints inside work", async () => {
        const value = await db.transaction("write", async (tx) => {
          await tx.execute(`INSERT INTO ${t} (x) VALUES (?)`, ["kept"]);
          await tx.execute("SAVEPOINT inner1", []);
          await tx.execute(`INSERT INTO ${t} (x) VALUES (?)`, ["undone"]);
          await tx.execute("ROLLBACK TO inner1", []);
          await tx.execute("RELEASE inner1", []);
          return "done";
        });
        expect(value).toBe("done");
        const boom = new Error("body failed");
        await expect(
          db.transaction("write", async (tx) => {
            await tx.execute(`INSERT INTO ${t} (x) VALUES (?)`, ["rolled back"]);
            throw boom;
          }),
        ).rejects.toBe(boom);
        const { rows } = await db.execute(`SELECT x FROM ${t} WHERE id > 1 ORDER BY id`, []);
        expect(rows).toEqual([{ x: "kept" }]);
      });

      it("runs a transaction with foreign keys off, and the connection is as before afterwards", async () => {
        const parent = `${t}_parent`;
        const child = `${t}_child`;
        await db.execute(`CREATE TABLE ${parent} (id TEXT PRIMARY KEY)`, []);
        await db.execute(`CREATE TABLE ${child} (p TEXT REFERENCES ${parent}(id))`, []);
        const enforced = async () =>
          Number(
            Object.values(
              await db.transaction(
                "write",
                async (tx) => (await tx.execute("PRAGMA foreign_keys", [])).rows[0] ?? {},
              ),
            )[0],
          );
        const before = await enforced();
        expect(before).toBe(1);
        const inside = await db.transaction(
          "write",
          async (tx) => {
            await tx.execute(`INSERT INTO ${child} (p) VALUES ('orphan')`, []);
            return Number(Object.values((await tx.execute("PRAGMA foreign_keys", [])).rows[0] ?? {})[0]);
          },
          { foreignKeys: "off" },
        );
        expect(inside).toBe(0);
        const boom = new Error("body failed");
        await expect(
          db.transaction(
            "write",
            async (tx) => {
              await tx.execute(`INSERT INTO ${child} (p) VALUES ('rolled back')`, []);
              throw boom;
            },
            { foreignKeys: "off" },
          ),
        ).rejects.toBe(boom);
        expect((await db.execute(`SELECT p FROM ${child}`, [])).rows).toEqual([{ p: "orphan" }]);
        // Enforced again on whatever connection or stream the client lends next (a file: client
        // pools its connections).
        for (let i = 0; i < 3; i++) {
          expect(await enforced()).toBe(before);
          expect((await failure(db.execute(`INSERT INTO ${child} (p) VALUES ('x')`, []))).code).toBe(
            "SQLITE_CONSTRAINT",
          );
        }
      });

      it("a statement outside does not see another caller's open transaction", async () => {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        const writer = db.transaction("write", async (tx) => {
          await tx.execute(`INSERT INTO ${t} (x) VALUES (?)`, ["pending"]);
          await gate;
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        const seen = await db.execute(`SELECT count(*) AS n FROM ${t} WHERE x = 'pending'`, []);
        release();
        await writer;
        expect(seen.rows).toEqual([{ n: 0 }]);
        expect((await db.execute(`SELECT count(*) AS n FROM ${t} WHERE x = 'pending'`, [])).rows).toEqual([
          { n: 1 },
        ]);
      });

      it("server errors keep SQLite's result code", async () => {
        const duplicate = await failure(db.execute(`INSERT INTO ${t} (x) VALUES ('kept')`, []));
        expect(duplicate.code).toBe("SQLITE_CONSTRAINT");
        expect(duplicate.message).toMatch(/UNIQUE constraint failed/);
        expect((await failure(db.execute("SELECT * FROM no_such_table", []))).code).toBe("SQLITE_ERROR");
        expect((await failure(db.execute("SELEC 1", []))).code).toBe("SQLITE_ERROR");
        const inTx = await failure(
          db.transaction("write", (tx) => tx.execute(`INSERT INTO ${t} (x) VALUES ('kept')`, [])),
        );
        expect(inTx.code).toBe("SQLITE_CONSTRAINT");
      });
    },
  );
}

describe.skipIf(!available.ok)(
  `network failures${available.ok ? "" : ` (skipped: ${available.reason})`}`,
  () => {
    it("an unreachable server is BUSY / LIBSQL_UNREACHABLE (nothing was sent: patience may retry)", async () => {
      const doomed = await startSqld();
      const urls = [doomed.httpUrl, doomed.wsUrl];
      await doomed.stop();
      for (const url of urls) {
        const error = await failure(openLibsqlExecutor(url));
        expect(error.code, url).toBe("SQLITE_BUSY");
        expect(error.extendedCode).toBe("LIBSQL_UNREACHABLE");
        expect(error.message).toMatch(/unreachable/);
      }
      // A client that reached the server before it went away.
      const node = await startSqld();
      const clients = [await openLibsqlExecutor(node.httpUrl), await openLibsqlExecutor(node.wsUrl)];
      await node.kill();
      for (const db of clients) {
        const error = await failure(db.execute("SELECT 1", []));
        expect(error.code, db.url).toBe("SQLITE_BUSY");
        expect(error.extendedCode).toBe("LIBSQL_UNREACHABLE");
        const inTx = await failure(db.transaction("write", (tx) => tx.execute("SELECT 1", [])));
        expect(inTx.extendedCode).toBe("LIBSQL_UNREACHABLE");
        db.close();
      }
      await node.stop();
    });

    it("a server killed inside a transaction: BUSY / LIBSQL_CONNECTION_LOST, nothing stored", async () => {
      const node = await startSqld({ dir: mkdtempSync(join(folder, "node-")) });
      try {
        for (const url of [node.httpUrl, node.wsUrl]) {
          const db = await openLibsqlExecutor(url);
          await db.execute("CREATE TABLE IF NOT EXISTS k (x TEXT)", []);
          const error = await failure(
            db.transaction("write", async (tx) => {
              await tx.execute("INSERT INTO k VALUES ('lost')", []);
              await node.kill();
              await tx.execute("INSERT INTO k VALUES ('never')", []);
            }),
          );
          expect(error.code, url).toBe("SQLITE_BUSY");
          expect(["LIBSQL_CONNECTION_LOST", "LIBSQL_UNREACHABLE"]).toContain(error.extendedCode);
          await node.restart();
          expect((await db.execute("SELECT count(*) AS n FROM k", [])).rows).toEqual([{ n: 0 }]);
          db.close();
        }
      } finally {
        await node.stop();
      }
    });

    it("a COMMIT whose answer is lost is IOERR / LIBSQL_COMMIT_UNKNOWN — and here it was stored, once", async () => {
      const node = server as SqldServer;
      const proxy = await cuttingProxy(node.httpUrl);
      const db = await openLibsqlExecutor(proxy.url);
      const direct = await openLibsqlExecutor(node.httpUrl);
      try {
        await db.execute("CREATE TABLE IF NOT EXISTS c (x TEXT)", []);
        proxy.cutOn('"COMMIT"');
        const error = await failure(
          db.transaction("write", (tx) => tx.execute("INSERT INTO c VALUES ('maybe')", [])),
        );
        expect(proxy.cuts).toBe(1);
        expect(error.code).toBe("SQLITE_IOERR");
        expect(error.extendedCode).toBe("LIBSQL_COMMIT_UNKNOWN");
        expect(error.message).toMatch(/may or may not be stored/);
        expect((await direct.execute("SELECT count(*) AS n FROM c", [])).rows).toEqual([{ n: 1 }]);

        // The same loss on a write outside a transaction, and on a read (harmless: retryable).
        proxy.cutOn("INSERT INTO c");
        const write = await failure(db.execute("INSERT INTO c VALUES ('autocommit')", []));
        expect(write.extendedCode).toBe("LIBSQL_COMMIT_UNKNOWN");
        proxy.cutOn("SELECT count");
        const read = await failure(db.execute("SELECT count(*) AS n FROM c", []));
        expect(read.code).toBe("SQLITE_BUSY");
        expect(read.extendedCode).toBe("LIBSQL_CONNECTION_LOST");
        expect((await db.execute("SELECT count(*) AS n FROM c", [])).rows).toEqual([{ n: 2 }]);
      } finally {
        db.close();
        direct.close();
        await proxy.close();
      }
    });

    it("sqld failing a request (HTTP 500: TEXT that is not valid UTF-8) is ERROR / LIBSQL_SERVER_ERROR, not a lost connection", async () => {
      const db = await openLibsqlExecutor((server as SqldServer).httpUrl);
      try {
        await db.execute("CREATE TABLE IF NOT EXISTS bad_text (x TEXT)", []);
        await db.execute("INSERT INTO bad_text VALUES (CAST(x'61C3' AS TEXT))", []);
        const error = await failure(db.execute("SELECT x FROM bad_text", []));
        expect(error.code).toBe("SQLITE_ERROR");
        expect(error.extendedCode).toBe("LIBSQL_SERVER_ERROR");
        expect((await db.execute("SELECT hex(x) AS h FROM bad_text", [])).rows).toEqual([{ h: "61C3" }]);
      } finally {
        db.close();
      }
    });

    it("sqld's transaction timeout (a writer held the lock > 5 s while another waited) is BUSY, nothing stored", async () => {
      const node = server as SqldServer;
      const db = await openLibsqlExecutor(node.httpUrl);
      await db.execute("CREATE TABLE IF NOT EXISTS slow (x TEXT)", []);
      let holding!: () => void;
      const held = new Promise<void>((resolve) => {
        holding = resolve;
      });
      const slow = db.transaction("write", async (tx) => {
        await tx.execute("INSERT INTO slow VALUES ('slow')", []);
        holding();
        await new Promise((resolve) => setTimeout(resolve, 7_000));
        await tx.execute("INSERT INTO slow VALUES ('slow again')", []);
      });
      await held;
      await db.transaction("write", (tx) => tx.execute("INSERT INTO slow VALUES ('waiting')", []));
      const error = await failure(slow);
      expect(error.code).toBe("SQLITE_BUSY");
      expect(error.extendedCode).toBe("LIBSQL_TRANSACTION_TIMEOUT");
      expect((await db.execute("SELECT x FROM slow", [])).rows).toEqual([{ x: "waiting" }]);
      db.close();
    }, 30_000);
  },
);
