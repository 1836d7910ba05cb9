/**
 * `npm test`: the whole bench in smoke mode (1k messages, every suite once, every runtime that
 * is present) so it cannot rot. Only checks that each suite produced finite numbers — never
 * compares timings. Runs the built scripts (npm test builds first).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVER_TARGETS, TARGETS } from "./engine.js";
import { METRICS, type TargetResult } from "./metrics.js";
import { WHOLE_STORE_SUITES } from "./plans.js";

const dist = fileURLToPath(new URL("../dist/run.js", import.meta.url));
const out = mkdtempSync(join(tmpdir(), "sessiondb-bench-smoke-"));
/** How long the smoke run may take before it counts as hung. */
const SMOKE_LIMIT_MS = 600_000;
let results: TargetResult[] = [];
let log = "";

beforeAll(() => {
  if (!existsSync(dist)) throw new Error(`${dist} is missing: run "npm run build" (npm test does it)`);
  // Every target in turn, while CI runs every other package's tests beside it: 38 s alone on
  // an idle machine, 143 s and then over 150 s in CI runs on a slow day (2026-12-04). The limit
  // only has to catch a hang.
  const run = spawnSync(process.execPath, [dist, "--smoke", "--out", out], {
    encoding: "utf8",
    timeout: SMOKE_LIMIT_MS,
  });
  log = `${run.stderr}\n${run.stdout}`;
  if (run.status !== 0) throw new Error(`bench --smoke exited ${run.status ?? run.signal}:\n${log}`);
  results = (JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as { results: TargetResult[] })
    .results;
}, SMOKE_LIMIT_MS + 10_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("bench smoke", () => {
  it("every whole-store suite is one of the runner's suites, named without a comma", () => {
    // The names reach the runner as one comma-separated --skip list (run.ts); a renamed suite or
    // a comma in a name would let a minutes-long job run on every target of a large store.
    const runner = readFileSync(fileURLToPath(new URL("./runner.ts", import.meta.url)), "utf8");
    for (const name of WHOLE_STORE_SUITES) {
      expect(name).not.toContain(",");
      expect(runner).toContain(`["${name}", `);
    }
  });

  it("ran on at least one target and wrote the table", () => {
    expect(results.filter((r) => !r.skipped).length).toBeGreaterThan(0);
    expect(readFileSync(join(out, "results.md"), "utf8")).toContain("| figure | unit | goal |");
  });

  it.for(TARGETS)("%s: every suite produced finite numbers", (target, ctx) => {
    const result = results.find((r) => r.target === target);
    expect(result).toBeDefined();
    if (result?.skipped) {
      console.log(`skipped ${target}: ${result.skipped}`);
      ctx.skip(result.skipped);
      return;
    }
    const size = result?.sizes["1k"];
    expect(size?.errors, log).toEqual({});
    // A server target measures the server figures only; a file target every other one.
    const server = SERVER_TARGETS.includes(target);
    for (const name of Object.keys(METRICS).filter((n) => n.startsWith("server.") === server)) {
      const value = size?.metrics[name];
      expect(Number.isFinite(value), `${target} ${name} = ${value}`).toBe(true);
    }
    expect(size?.messages).toBe(1000);
  });
});
