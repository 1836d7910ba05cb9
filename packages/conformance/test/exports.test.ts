/**
 * The runtime names the built @sessiondb/conformance exports, pinned: the README's export list.
 * A new export is a decision: add it here and to the README. Turbo builds before testing; run
 * `npm run build` first when testing by hand.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const DIST = new URL("../dist/index.js", import.meta.url);
const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

const NAMES = [
  "appendCalls",
  "appendUntilKilled",
  "childAppender",
  "childLockHolder",
  "garbage",
  "runConformance",
  "runDriverContract",
  "storedMessages",
  "waitForAcks",
];

describe.skipIf(!existsSync(DIST))("exported names (needs npm run build)", () => {
  it("exactly the documented list", async () => {
    expect(Object.keys(await import(DIST.href)).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) expect(README, `README lists ${name}`).toMatch(new RegExp(`\`${name}[\`(]`));
  });

  it("reaches core only through its entries, never into its files", () => {
    const built = readFileSync(DIST, "utf8");
    const specifiers = [...built.matchAll(/from\s*["']([^"']+)["']/g)].map((m) => m[1] as string);
    const sessiondb = [...new Set(specifiers.filter((s) => s.startsWith("@sessiondb/")))].sort();
    // (the driver seam's types from @sessiondb/core/driver leave no import behind)
    expect(sessiondb).toEqual(["@sessiondb/core", "@sessiondb/core/testing"]);
    expect(specifiers.filter((s) => s.startsWith("."))).toEqual([]);
  });
});
