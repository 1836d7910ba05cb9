/**
 * The README's opening example as a user meets it: written to a file and run as written by Node
 * in a fresh folder whose home holds the project's Claude Code, Codex and Hermes fixtures in
 * the producers' default places (the packages resolve from this repository's node_modules). Needs
 * the built packages (turbo builds before testing).
 */
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveDriver } from "@sessiondb/node";
import { afterAll, describe, expect, it } from "vitest";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const README = readFileSync(here("../README.md"), "utf8");
const DIST = here("../dist/index.js");
const example = /```js\n([\s\S]*?)```/.exec(README)?.[1] ?? "";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-formats-readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!existsSync(DIST))("the README (needs npm run build)", () => {
  it("its opening example imports the four formats from their default places, and again stores nothing", () => {
    symlinkSync(here("../../../node_modules"), join(dir, "node_modules"));
    const home = join(dir, "home");
    mkdirSync(join(home, ".claude"), { recursive: true });
    mkdirSync(join(home, ".codex"), { recursive: true });
    cpSync(here("fixtures/claude-code"), join(home, ".claude/projects"), { recursive: true });
    cpSync(here("fixtures/codex"), join(home, ".codex/sessions"), { recursive: true });
    mkdirSync(join(home, ".hermes"));
    const hermes = resolveDriver().open(join(home, ".hermes/state.db"), { readOnly: false });
    hermes.exec(readFileSync(here("fixtures/hermes/state.sql"), "utf8"));
    hermes.close();
    mkdirSync(join(home, ".local/share/opencode"), { recursive: true });
    const opencode = resolveDriver().open(join(home, ".local/share/opencode/opencode.db"), {
      readOnly: false,
    });
    opencode.exec(readFileSync(here("fixtures/opencode/opencode.sql"), "utf8"));
    opencode.close();
    writeFileSync(join(dir, "example.mjs"), example);
    const out = execFileSync(process.execPath, ["example.mjs"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, HOME: home, USERPROFILE: home, HERMES_HOME: "", XDG_DATA_HOME: "" },
    });
    const lines = out.trim().split("\n");
    expect(lines[0]).toMatch(/^claude-code: [1-9]\d* sessions, [1-9]\d* rows$/);
    expect(lines[1]).toMatch(/^codex: [1-9]\d* sessions, [1-9]\d* rows$/);
    expect(lines[2]).toBe("hermes: 2 sessions, 18 rows");
    expect(lines[3]).toBe("opencode: 2 sessions, 38 rows");
    expect(lines[4]).toMatch(/^again: 0 rows, [1-9]\d* files unchanged$/);
  });
});
