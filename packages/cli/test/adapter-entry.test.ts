/**
 * The CLI as a package: it exports nothing (a new export is a decision), and `#adapter` picks
 * the runtime's adapter by export condition. Bun also matches "node" and Deno matches "node"
 * too, so "node" must come last: the first matching key wins. runtimes.test.ts runs the built
 * CLI on each runtime and checks the driver each one reports; here, each runtime's adapter
 * answers an unknown SESSIONDB_DRIVER with its own choices.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { cli, runOn, TARGETS, tempDir } from "./helpers.js";

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

describe.each(TARGETS)("$name: SESSIONDB_DRIVER", (target) => {
  it("an unknown driver name exits 6 naming this runtime's drivers, and creates nothing", () => {
    const db = path.join(tempDir(), "state.db");
    const r = runOn({ ...target, env: { SESSIONDB_DRIVER: "sqlite3" } })(["--db", db, "stats"]);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toMatch(
      /^sessiondb: SESSIONDB_DRIVER="sqlite3" is not a SQLite driver sessiondb has on (node|bun|deno): set it to /,
    );
    expect(r.stderr).toContain(`"${target.driver}"`);
    // The library's "or a SqliteDriver object" is for programs; a shell can only name one.
    expect(r.stderr).not.toContain("SqliteDriver");
    expect(cli(["--db", db, "stats"]).code).toBe(3);
  });
});
