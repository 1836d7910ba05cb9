/**
 * The README's example, run as written (its first js block, as a module in a folder of this
 * package so its imports resolve), in a fresh process; then the store it wrote.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@sessiondb/node";
import { afterAll, describe, expect, it } from "vitest";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const DIST = new URL("../dist/index.js", import.meta.url);
const dir = mkdtempSync(join(fileURLToPath(new URL(".", import.meta.url)), ".readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!existsSync(DIST))("README example (needs npm run build)", () => {
  it("runs as written and leaves the session in the store", async () => {
    const example = /```js\n([\s\S]*?)```/.exec(README)?.[1];
    expect(example).toBeDefined();
    writeFileSync(join(dir, "example.mjs"), example as string);
    const out = execFileSync(process.execPath, ["example.mjs"], { cwd: dir, encoding: "utf8" });
    expect(out).toBe("You said: My order #1234 has not arrived.\n2\n");
    const store = openStore(join(dir, "agent-sessions.db"));
    try {
      expect(store.getMessages("support-42").map((m) => [m.role, m.content])).toEqual([
        ["user", "My order #1234 has not arrived."],
        ["assistant", "You said: My order #1234 has not arrived."],
      ]);
      expect(store.search("arrived").hits.length).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  });
});
