/**
 * The runtime names the built @sessiondb/claude-agent-sdk exports, pinned: the README's API list.
 * A new export is a decision: add it here and to the README. Turbo builds before testing; run
 * `npm run build` first when testing by hand.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const DIST = new URL("../dist/index.js", import.meta.url);
const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const NAMES = ["SessionDbSessionStore", "CLAUDE_AGENT_SDK_SOURCE", "InvalidInputError"];

describe.skipIf(!existsSync(DIST))("exported names (needs npm run build)", () => {
  it("exactly the documented list", async () => {
    expect(Object.keys(await import(DIST.href)).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES)
      expect(README, `README lists ${name}`).toMatch(new RegExp(`\`(new )?${name}[\`(]`));
  });
});
