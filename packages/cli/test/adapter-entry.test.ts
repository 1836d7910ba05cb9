/**
 * The CLI as a package: it exports nothing (a new export is a decision), and `#adapter` picks
 * the runtime's adapter by export condition. Bun also matches "node" and Deno matches "node"
 * too, so "node" must come last: the first matching key wins. runtimes.test.ts runs the built
 * CLI on each runtime and checks the driver each one reports.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

describe("package.json", () => {
  it("exports nothing but package.json", () => {
    expect(Object.keys(pkg.exports)).toEqual(["./package.json"]);
  });

  it("#adapter maps bun, deno, then node to their adapters", () => {
    expect(pkg.imports).toEqual({
      "#adapter": { bun: "@sessiondb/bun", deno: "@sessiondb/deno", node: "@sessiondb/node" },
    });
    expect(Object.keys(pkg.imports["#adapter"])).toEqual(["bun", "deno", "node"]);
  });
});
