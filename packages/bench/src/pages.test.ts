/**
 * `dist/proc/pages.js` (the pages a single append writes, by table and index): run on Node 20 +
 * better-sqlite3 with a few appends, it must count frames the appends wrote and map them to the
 * objects each store has — the trigram index only in ours, the session row only in ours. Runs the
 * built script (npm test builds first); never compares timings.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";

/** Node 20, where better-sqlite3 is built: the root `npm test` names it (this worker may be the
 * pinned Node 24 that `node_modules/.bin` puts first on PATH). */
const HOST_NODE = process.env.SESSIONDB_HOST_NODE || process.execPath;
const script = fileURLToPath(new URL("../dist/proc/pages.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sessiondb-bench-pages-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Side {
  pages: number;
  byObject: Record<string, number>;
}

it("counts the pages of each append and names the table or index of each", () => {
  if (!existsSync(script)) throw new Error(`${script} is missing: run "npm run build" (npm test does it)`);
  const run = spawnSync(HOST_NODE, [script, "node-better-sqlite3", join(dir, "files"), "40"], {
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBe(0);
  const result = JSON.parse(run.stdout) as { calls: number; peer: Side; store: Side };
  expect(result.calls).toBe(40);
  for (const side of [result.peer, result.store]) {
    // Every append commits at least its row and the word index.
    expect(side.byObject.messages).toBeGreaterThanOrEqual(1);
    expect(side.byObject.messages_fts_data).toBeGreaterThan(0);
    const sum = Object.values(side.byObject).reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - side.pages)).toBeLessThan(0.1 * Object.keys(side.byObject).length);
  }
  expect(result.store.byObject.messages_fts_trigram_data).toBeGreaterThan(0);
  expect(result.store.byObject.sessions).toBeGreaterThan(0);
  expect(result.peer.byObject.messages_fts_trigram_data).toBeUndefined();
  expect(result.peer.byObject.sessions).toBeUndefined();
});
