/**
 * Control characters stored in transcripts never reach a terminal raw: every human-output path
 * shows them visibly (`\u001b`), --json and JSONL keep them exact. The transcript is the
 * reviewer's: a title that sets the window title, a body that clears the screen and plants an
 * OSC 8 link, tool output that moves the cursor up and returns the carriage to overwrite output.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { visible } from "../src/visible.js";
import { cli, json, tempDir } from "./helpers.js";

const ESC = "\u001b";
const TITLE = `title ${ESC}]0;PWNED-TITLE\u0007${ESC}[31mred${ESC}[0m \u009b2J`;
const USER = `hello ${ESC}[2J${ESC}[H cleared ${ESC}]8;;http://evil.example/\u0007click${ESC}]8;;\u0007 zzmarker`;
const TOOL = `out ${ESC}[1A${ESC}[K overwrite\r fake prompt $ zzmarker \u009b2J\u0008\u007f\ttab`;
const SOURCE = `src${ESC}[8m`;

/** Any control character a terminal acts on: C0 but \n and \t, DEL, C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let dir: string;
let db: string;

beforeAll(() => {
  dir = tempDir();
  db = path.join(dir, "hostile.db");
  const lines = [
    { type: "session", id: "ansi1", source: SOURCE, title: TITLE, started_at: 1700000000 },
    { role: "user", content: USER, timestamp: 1700000001 },
    { role: "tool", name: `bash${ESC}[2J`, tool_call_id: "c1", content: TOOL, timestamp: 1700000002 },
  ];
  const file = path.join(dir, "hostile.jsonl");
  fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  const r = cli(["--db", db, "import", file]);
  expect(r.code, r.stderr).toBe(0);
});

describe("visible", () => {
  it("writes every C0/C1 control but newline and tab as \\uXXXX, and leaves other text alone", () => {
    expect(visible(`a${ESC}[2Jb\r\n\tc\u0000\u007f\u0085\u009b`)).toBe(
      "a\\u001b[2Jb\\u000d\n\tc\\u0000\\u007f\\u0085\\u009b",
    );
    expect(visible("plain — 修复 🚀 «match» \u00a0")).toBe("plain — 修复 🚀 «match» \u00a0");
  });
});

describe("human output shows stored control characters visibly", () => {
  const cases: Array<[string, string[]]> = [
    ["sessions show", ["sessions", "show", "ansi1", "--full", "--no-pager"]],
    ["sessions list", ["sessions", "list", "--no-pager"]],
    ["search", ["search", "zzmarker", "--no-pager"]],
    ["usage", ["usage", "--by", "source", "--no-pager"]],
    ["prune --dry-run", ["prune", "--older-than", "1d", "--dry-run"]],
    ["export --format markdown", ["export", "--format", "markdown"]],
    ["export --format html", ["export", "--format", "html"]],
  ];
  for (const [name, args] of cases) {
    it(name, () => {
      // A terminal's width, so tables and wrapping take their terminal paths.
      const r = cli(["--db", db, ...args], { env: { COLUMNS: "200" } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(RAW_CONTROL);
      expect(r.stdout).toContain("\\u001b");
    });
  }

  it("sessions show: body, tool name, carriage return and C1 each visible; tab and newlines kept", () => {
    const r = cli(["--db", db, "sessions", "show", "ansi1", "--full", "--no-pager"]);
    expect(r.stdout).toContain(
      "hello \\u001b[2J\\u001b[H cleared \\u001b]8;;http://evil.example/\\u0007click",
    );
    expect(r.stdout).toContain("overwrite\\u000d fake prompt $ zzmarker \\u009b2J\\u0008\\u007f\ttab");
    expect(r.stdout).toContain("(bash\\u001b[2J)");
    expect(r.stdout).toContain("src\\u001b[8m");
  });

  it("an error line quoting a given value shows it visibly (JSON quoting leaves C1 raw)", () => {
    const r = cli(["--db", db, "export", "--session", `nope${ESC}]0;x\u0007\u009b`]);
    expect(r.code).toBe(7);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stderr).toContain("\\u001b]0;x");
    expect(r.stderr).toContain("\\u009b");
  });

  it("import's problem lines quote the file's field names and values visibly", () => {
    const file = path.join(dir, "fields.jsonl");
    const record = { type: "session", id: "f1", source: "cli", started_at: 1, [`x${ESC}]0;T\u0007`]: 1 };
    fs.writeFileSync(
      file,
      `${JSON.stringify(record)}\n{"role":"user","content":1,"timestamp":"${ESC}[2J"}\n`,
    );
    const r = cli(["--db", path.join(dir, "fields.db"), "import", file]);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain("\\u001b]0;T");
    expect(r.stderr).not.toMatch(RAW_CONTROL);
  });
});

describe("machine output stays exact", () => {
  it("--json and JSONL export carry the stored characters unchanged", () => {
    const shown = json(cli(["--db", db, "sessions", "show", "ansi1", "--json"]));
    expect(shown.session.title).toBe(TITLE);
    expect(shown.messages.map((m: { content: string }) => m.content)).toEqual([USER, TOOL]);
    const lines = cli(["--db", db, "export"])
      .stdout.trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0].title).toBe(TITLE);
    expect(lines[2].content).toBe(TOOL);
  });
});
