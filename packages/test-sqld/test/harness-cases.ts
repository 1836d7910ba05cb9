/**
 * The harness's own tests, written once for vitest, `bun test` and `deno test` (each entry file
 * passes its runner's describe/it). Queries go over raw Hrana HTTP, so nothing here depends on
 * a client library.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { sqldAuth, sqldAvailability, startSqld, startSqldPair } from "../src/index.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>, timeoutMs?: number) => void;

/** Rows of one statement over Hrana HTTP (v2 pipeline), values as JSON strings/numbers. */
export async function query(
  url: string,
  sql: string,
  token?: string,
): Promise<{ status: number; rows: unknown[][] }> {
  const response = await fetch(`${url}/v2/pipeline`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ requests: [{ type: "execute", stmt: { sql } }, { type: "close" }] }),
  });
  const text = await response.text();
  if (!response.ok) return { status: response.status, rows: [] };
  const result = JSON.parse(text).results[0];
  if (result.type !== "ok") throw new Error(`${sql}: ${JSON.stringify(result.error)}`);
  const rows = result.response.result.rows as Array<Array<{ value?: unknown }>>;
  return { status: response.status, rows: rows.map((row) => row.map((cell) => cell.value ?? null)) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Poll `check` until true; an error (a table the replica has not replayed yet) counts as false. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function harnessCases(describe: Suite, it: Test): void {
  const available = sqldAvailability();
  if (!available.ok) {
    describe(`sqld harness — skipped: ${available.reason}`, () => {});
    return;
  }

  describe("sqld harness", () => {
    it("starts a primary on loopback that answers SQL, and stop() ends it by pid and removes its folder", async () => {
      const primary = await startSqld();
      try {
        assert.match(primary.httpUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.equal(primary.wsUrl, primary.httpUrl.replace("http:", "ws:"));
        assert.match(primary.grpcUrl ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.ok(alive(primary.pid));
        assert.deepEqual((await query(primary.httpUrl, "SELECT sqlite_version()")).rows, [["3.45.1"]]);
        assert.ok(existsSync(primary.dbPath));
        // Its output is kept in a file of its folder (a pipe would stall sqld while the test
        // process is blocked in spawnSync), and log() reads it.
        assert.match(primary.log(), /listening for incoming user HTTP connection/);
      } finally {
        await primary.stop();
      }
      assert.equal(primary.running, false);
      assert.equal(alive(primary.pid), false);
      assert.equal(existsSync(primary.dir), false);
      await primary.stop();
    }, 60_000);

    it("pause() leaves the node taking requests but answering none until resume()", async () => {
      const node = await startSqld();
      try {
        node.pause();
        // Sent while paused: the kernel takes it; the answer comes only after resume().
        let answered = false;
        const pending = query(node.httpUrl, "SELECT 7").then((result) => {
          answered = true;
          return result;
        });
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(answered, false, "a paused node answered");
        node.resume();
        assert.deepEqual((await pending).rows, [["7"]]);
      } finally {
        node.resume();
        await node.stop();
      }
      node.resume();
    }, 60_000);

    it("a replica forwards writes to its primary and replays them; after kill -9 it restarts on its data", async () => {
      const { primary, replica, stop } = await startSqldPair();
      try {
        assert.equal(replica.role, "replica");
        assert.equal(replica.grpcUrl, undefined);
        await query(replica.httpUrl, "CREATE TABLE t(x)");
        await query(replica.httpUrl, "INSERT INTO t VALUES (42)");
        assert.deepEqual((await query(primary.httpUrl, "SELECT x FROM t")).rows, [["42"]]);
        await eventually(
          async () => (await query(replica.httpUrl, "SELECT count(*) FROM t")).rows[0]?.[0] === "1",
        );

        const before = replica.pid;
        await replica.kill();
        assert.equal(replica.running, false);
        assert.equal(alive(before), false);
        await query(primary.httpUrl, "INSERT INTO t VALUES (43)");
        await replica.restart();
        assert.notEqual(replica.pid, before);
        await eventually(
          async () => (await query(replica.httpUrl, "SELECT count(*) FROM t")).rows[0]?.[0] === "2",
        );
      } finally {
        await stop();
      }
      assert.equal(primary.running, false);
      assert.equal(replica.running, false);
    }, 90_000);

    it("with auth, refuses requests without a token or with another key's token", async () => {
      const auth = sqldAuth();
      const primary = await startSqld({ auth });
      try {
        assert.equal((await query(primary.httpUrl, "SELECT 1")).status, 401);
        assert.equal((await query(primary.httpUrl, "SELECT 1", sqldAuth().token())).status, 401);
        assert.deepEqual((await query(primary.httpUrl, "SELECT 1", auth.token())).rows, [["1"]]);
      } finally {
        await primary.stop();
      }
    }, 60_000);
  });
}
