/**
 * The README as a driver author meets it: its `js` block written to a file in a fresh folder (the
 * packages resolve from this repository's node_modules) and run as written by Node 24 under
 * `node --test` — its node:sqlite is the driver — selecting by name the driver contract and the
 * Store API's sessions tests, so this stays a matter of seconds (the whole suite runs in every
 * adapter's own tests). Needs the built packages (`npm run build`; turbo builds before testing).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const README = readFileSync(here("../README.md"), "utf8");
const DIST = here("../dist/index.js");
const REPO_MODULES = here("../../../node_modules");
/** The pinned Node 24, which has node:sqlite (the Node running vitest may be 20). */
const NODE_24 = join(REPO_MODULES, ".bin", "node");

const example = /```js\n([\s\S]*?)```/.exec(README)?.[1] ?? "";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-conformance-readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
symlinkSync(REPO_MODULES, join(dir, "node_modules"));

describe.skipIf(!existsSync(DIST))("the README (needs npm run build)", () => {
  it("its example runs as written: the driver contract and the sessions tests pass", async () => {
    expect(example).toContain("runConformance({");
    writeFileSync(join(dir, "conformance.test.mjs"), example);
    const run = await promisify(execFile)(
      NODE_24,
      [
        "--test",
        "--test-name-pattern=^driver contract",
        "--test-name-pattern=^sessions$",
        "conformance.test.mjs",
      ],
      { cwd: dir, encoding: "utf8" },
    );
    expect(run.stdout).toMatch(/✔ driver contract \(my-driver\)/);
    expect(run.stdout).toMatch(/✔ sessions /);
    expect(run.stdout).toMatch(/ℹ fail 0\n/);
    expect(Number(/ℹ pass (\d+)/.exec(run.stdout)?.[1])).toBeGreaterThan(30);
  });
});
