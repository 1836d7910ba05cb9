/** The harness under vitest (Node); also: where the binary is missing, it says why. */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { harnessCases } from "./harness-cases.js";

harnessCases(describe, it);

const DIST = new URL("../dist/index.js", import.meta.url);

describe.skipIf(!existsSync(DIST))("sqldAvailability (needs npm run build)", () => {
  it("names the reason when SQLD_BIN points at nothing runnable", () => {
    const answer = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `console.log(JSON.stringify((await import(${JSON.stringify(DIST.href)})).sqldAvailability()))`,
      ],
      { env: { ...process.env, SQLD_BIN: "/nonexistent/sqld" }, encoding: "utf8" },
    );
    const result = JSON.parse(answer);
    expect(result.ok).toBe(false);
    expect(result.reason).toMatch(/\/nonexistent\/sqld cannot run here: .*ENOENT/);
  });
});
