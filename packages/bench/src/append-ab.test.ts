/**
 * `dist/proc/append-ab.js` (CPU per append of two builds in one process): run on Node 20 +
 * better-sqlite3 with this workspace as both sides, single appends and batches, it must append
 * on both and report each side's CPU per call. Runs the built script (npm test builds first);
 * never compares timings.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";

/** Node 20, where better-sqlite3 is built (see pages.test.ts). */
const HOST_NODE = process.env.SESSIONDB_HOST_NODE || process.execPath;
const script = fileURLToPath(new URL("../dist/proc/append-ab.js", import.meta.url));
const root = fileURLToPath(new URL("../../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sessiondb-bench-append-ab-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it.each([
  [1, "corpus"],
  [5, "short"],
])("reports CPU per call of both sides (%i messages per call, %s)", (perCall, kind) => {
  if (!existsSync(script)) throw new Error(`${script} is missing: run "npm run build" (npm test does it)`);
  const args = [script, "node-better-sqlite3", root, root, join(dir, "files"), "20", String(perCall)];
  const run = spawnSync(HOST_NODE, [...args, "normal", kind], { encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  const result = JSON.parse(run.stdout) as {
    calls: number;
    perCall: number;
    messages: string;
    cpuUsPerCall: { a: number; b: number };
    bOverA: number;
  };
  expect(result).toMatchObject({ calls: 20, perCall, messages: kind });
  expect(result.cpuUsPerCall.a).toBeGreaterThan(0);
  expect(result.cpuUsPerCall.b).toBeGreaterThan(0);
  expect(Number.isFinite(result.bOverA)).toBe(true);
});
