/**
 * Node before 20.16 has no `process.getBuiltinModule`, which the adapter's file-system host
 * loads `node:fs` with. Such a Node must get a clear, typed answer at the open — which Node to
 * run — not a file-system failure. A child process on this Node stands for the old one: it
 * deletes `process.getBuiltinModule` before the adapter loads, the one difference that matters.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const BUILT = new URL("../dist/index.js", import.meta.url).href;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!existsSync(new URL(BUILT)))(
  "a Node without process.getBuiltinModule (needs the build)",
  () => {
    it("openStore throws DriverUnavailableError naming the Node to run, and creates nothing", () => {
      const dir = mkdtempSync(join(tmpdir(), "sessiondb-old-node-"));
      dirs.push(dir);
      const script = `
      delete process.getBuiltinModule;
      const { openStore, DriverUnavailableError } = await import(${JSON.stringify(BUILT)});
      try {
        openStore(${JSON.stringify(join(dir, "state.db"))});
        console.log(JSON.stringify({ opened: true }));
      } catch (error) {
        console.log(JSON.stringify({ typed: error instanceof DriverUnavailableError, code: error.code, message: error.message }));
      }`;
      const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
      expect(child.stderr).toBe("");
      const result = JSON.parse(child.stdout);
      expect(result).toMatchObject({ typed: true, code: "DRIVER_UNAVAILABLE" });
      expect(result.message).toContain(`this is Node ${process.versions.node}`);
      expect(result.message).toContain("Node ≥ 20.16");
      expect(readdirSync(dir)).toEqual([]);
    });
  },
);
