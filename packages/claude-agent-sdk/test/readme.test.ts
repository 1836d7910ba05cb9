/**
 * The README's example, run as written (its first js block, as a module in a folder of this
 * package so its imports resolve), in a fresh process over a Claude config folder holding one
 * transcript for that folder; run twice (nothing stored twice), then the store it wrote.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@sessiondb/node";
import { afterAll, describe, expect, it } from "vitest";
import { transcript } from "./support/transcript.js";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const DIST = new URL("../dist/index.js", import.meta.url);
const dir = mkdtempSync(join(fileURLToPath(new URL(".", import.meta.url)), ".readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SESSION = "7ea0c0de-0000-4000-8000-00000000beef";

describe.skipIf(!existsSync(DIST))("README example (needs npm run build)", () => {
  it("runs as written and leaves the session in the store", () => {
    const example = /```js\n([\s\S]*?)```/.exec(README)?.[1];
    expect(example).toBeDefined();
    writeFileSync(join(dir, "example.mjs"), example as string);
    const config = join(dir, "config");
    const folder = join(config, "projects", dir.replace(/[^a-zA-Z0-9]/g, "-"));
    mkdirSync(folder, { recursive: true });
    const lines = transcript(SESSION, dir).map((l) => JSON.stringify(l));
    writeFileSync(join(folder, `${SESSION}.jsonl`), `${lines.join("\n")}\n`);
    const env = { ...process.env, CLAUDE_CONFIG_DIR: config };
    for (let i = 0; i < 2; i++) {
      const out = execFileSync(process.execPath, ["example.mjs"], { cwd: dir, encoding: "utf8", env });
      expect(out).toBe("Zeilen zählen: 5 messages\n");
    }
    const store = openStore(join(dir, "claude-sessions.db"));
    try {
      expect(store.getMessages(SESSION).map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "assistant",
        "tool",
        "assistant",
      ]);
      // The two lines without a uuid (a file snapshot, the title) are appended on each run, as
      // the SDK's contract asks; the five with one are stored once.
      const all = store.getMessages(SESSION, { includeInactive: true });
      expect(all).toHaveLength(9);
      expect(all.filter((m) => m.externalId !== null)).toHaveLength(5);
      expect(store.getSession(SESSION)?.title).toBe("Zeilen zählen");
      expect(store.search("README").hits.length).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  });
});
