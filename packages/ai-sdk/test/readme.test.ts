/**
 * The README as a user meets it: its first `js` block written to a file and run as written by
 * Node in a fresh folder (the packages resolve from this repository's node_modules), its output
 * compared with the "prints" block, then the CLI commands the README shows run on the store it
 * made. Needs the built package (`npm run build`; turbo builds before testing) and, for the CLI
 * part, the built CLI.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const README = readFileSync(here("../README.md"), "utf8");
const DIST = here("../dist/index.js");
const CLI = here("../../cli/dist/bin.js");
const REPO_MODULES = here("../../../node_modules");

const blocks = [...README.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({
  lang: m[1],
  text: m[2] as string,
}));
const example = blocks.find((b) => b.lang === "js")?.text ?? "";
const printed = blocks[blocks.indexOf(blocks.find((b) => b.lang === "js") as never) + 1]?.text ?? "";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-ai-sdk-readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
symlinkSync(REPO_MODULES, join(dir, "node_modules"));

const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: dir, encoding: "utf8" });

describe.skipIf(!existsSync(DIST))("the README (needs npm run build)", () => {
  it("its example runs as written and prints what the README says", () => {
    expect(example).toContain('openStore("chats.db")');
    writeFileSync(join(dir, "example.mjs"), example);
    expect(node(["example.mjs"])).toBe(printed);
  });

  it.skipIf(!existsSync(CLI))("the CLI shows the saved chat as the README says (needs the CLI built)", () => {
    const show = node([CLI, "--db", "chats.db", "sessions", "show", "chat-1"]);
    const documented =
      /\$ sessiondb --db chats\.db sessions show chat-1\n([\s\S]*?)```/.exec(README)?.[1] ?? "";
    const withoutTimes = (text: string) => text.replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/g, "<time>");
    expect(withoutTimes(show)).toBe(withoutTimes(documented));
    for (const line of README.matchAll(/^sessiondb --db chats\.db (.+?)\s+#/gm)) {
      const args = (line[1] as string).match(/"[^"]*"|\S+/g)?.map((arg) => arg.replace(/^"|"$/g, "")) ?? [];
      if (args[0] === "serve") continue; // a server: the CLI's own tests drive it
      node([CLI, "--db", "chats.db", ...args]);
    }
    expect(node([CLI, "--db", "chats.db", "search", "help"])).toContain("1 hit");
    expect(node([CLI, "--db", "chats.db", "usage", "--by", "model"])).toMatch(/mock-model\s+1\s+1\s+12\s+6/);
  });
});
