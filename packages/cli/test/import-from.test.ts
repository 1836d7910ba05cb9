/**
 * `sessiondb import --from codex` as a person runs it: the real built CLI as a subprocess on each
 * runtime, over a copy of the Codex fixtures laid out as ~/.codex/sessions; a re-import adds
 * nothing; an import while another process appends to a session file picks the rest up next
 * time; --watch brings new lines into search within seconds and stops on SIGINT with exit 0.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cli, json, sessionShapes, startCli, TARGETS, tempDir, withStore } from "./helpers.js";

const FIXTURES = fileURLToPath(new URL("../../formats/test/fixtures/codex", import.meta.url));
const PARENT = "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const MAIN = "2026/03/14/rollout-2026-03-14T09-30-00-0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl";

function codexHome(): { home: string; root: string; db: string } {
  const home = tempDir();
  const root = path.join(home, ".codex", "sessions");
  fs.cpSync(FIXTURES, root, { recursive: true });
  return { home, root, db: path.join(home, "s.db") };
}

const line = (n: number, role: string, text: string) =>
  `${JSON.stringify({
    timestamp: new Date(1_775_000_000_000 + n * 1000).toISOString(),
    type: "response_item",
    payload: {
      type: "message",
      role,
      content: [{ type: role === "user" ? "input_text" : "output_text", text }],
    },
  })}\n`;
const META = (id: string) =>
  `${JSON.stringify({ timestamp: "2026-04-01T10:00:00.000Z", type: "session_meta", payload: { id, cwd: "/srv" } })}\n`;

describe.each(TARGETS)("import --from codex ($name)", (target) => {
  it("imports the fixtures with exact counts, reports the broken line, and a re-import adds nothing", () => {
    const { home, root, db } = codexHome();
    const run = (args: string[]) =>
      cli(["--db", db, ...args], { runtime: target.runtime, env: { ...target.env, HOME: home } });
    const first = run(["import", "--from", "codex", "--json"]);
    expect(first.code, first.stderr).toBe(8);
    const out = json(first);
    expect(out.files).toEqual({ total: 2, read: 2, unchanged: 0, resumed: 0 });
    expect(out.sessions).toEqual({ created: 2, grown: 0, linked: 0 });
    expect(out.messages).toBe(33);
    expect(out.partial).toBe(1);
    expect(out.problems).toEqual([
      { file: path.join(root, MAIN), line: 28, message: expect.stringMatching(/^not JSON/) },
    ]);
    const again = run(["import", "--from", "codex", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({ files: { total: 2, read: 0, unchanged: 2 }, messages: 0 });
    expect(sessionShapes(run(["sessions", "list", "--json"]))).toEqual([
      [PARENT, "gpt-5-codex", 13, null],
      ["0195a1b2-ffff-7e5f-8a9b-0c1d2e3f4a5c", "gpt-5-codex", 2, PARENT],
    ]);
    // Codex records no cost: estimated from list prices (gpt-5 and gpt-5-codex at 1.25 / 10 /
    // 0.125 USD per million), marked so, and summed exactly: 0.002975 + 0.004775 + 0.00125.
    const usage = json(run(["usage", "--json"]));
    expect([usage.total.cost, usage.total.estimatedCost]).toEqual([0.009, 0.009]);
    expect(run(["usage"]).stdout).toContain("of it estimated from list prices");
    const found = json(run(["search", "日本語", "--json"]));
    expect(JSON.stringify(found)).toContain(PARENT);
  });
});

const CLAUDE_FIXTURES = fileURLToPath(new URL("../../formats/test/fixtures/claude-code", import.meta.url));
const CLAUDE_MAIN = "3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f";

describe.each(TARGETS)("import --from claude-code ($name)", (target) => {
  it("imports a project folder with its subagent (read before its parent), usage per model as the files count it", () => {
    const home = tempDir();
    fs.cpSync(CLAUDE_FIXTURES, path.join(home, ".claude", "projects"), { recursive: true });
    const db = path.join(home, "s.db");
    const run = (args: string[]) =>
      cli(["--db", db, ...args], { runtime: target.runtime, env: { ...target.env, HOME: home } });
    const first = run(["import", "--from", "claude-code", "--json"]);
    expect(first.code, first.stderr).toBe(8);
    expect(json(first)).toMatchObject({
      files: { total: 2, read: 2, unchanged: 0, resumed: 0 },
      sessions: { created: 2, grown: 0, linked: 0 },
      messages: 27,
      partial: 1,
      unknown: { "world-state": 1 },
      problems: [{ line: 20 }],
    });
    expect(json(run(["import", "--from", "claude-code", "--json"])).messages).toBe(0);
    const { sessions } = json(run(["sessions", "list", "--json"]));
    expect(
      sessions.map((s: { id: string; messageCount: number; parentSessionId: string | null }) => [
        s.id,
        s.messageCount,
        s.parentSessionId,
      ]),
    ).toEqual([
      [`${CLAUDE_MAIN}/subagents/agent-a1b2c3d`, 4, CLAUDE_MAIN],
      [CLAUDE_MAIN, 13, null],
    ]);
    const usage = json(run(["usage", "--json"]));
    expect(
      usage.byModel
        .map((m: { model: string; calls: number; input: number; output: number; cache: number }) => [
          m.model,
          m.calls,
          m.input,
          m.output,
          m.cache,
        ])
        .sort(),
    ).toEqual([
      ["claude-haiku-4-5-20251001", 2, 60, 42, 0],
      ["claude-opus-4-5-20251101", 2, 15, 280, 12_200],
      ["claude-sonnet-4-5-20250929", 1, 3, 50, 7000],
    ]);
  });
});

describe("import --from codex while the source grows", () => {
  it("an import while another process appends picks the rest up next time, nothing twice", async () => {
    const { root, db } = codexHome();
    const id = "0195a1b2-bbbb-7e5f-8a9b-0c1d2e3f4a5e";
    const file = path.join(root, `2026/04/01/rollout-2026-04-01T10-00-00-${id}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, META(id));
    const lines = Array.from({ length: 200 }, (_, i) =>
      line(i, i % 2 ? "assistant" : "user", `turn ${i} ünï`),
    );
    // Another process writes each line in two halves, a few milliseconds apart.
    const writer = spawn(
      process.execPath,
      [
        "-e",
        `const fs=require("fs");const ls=JSON.parse(process.argv[1]);let i=0;
         const next=()=>{if(i>=ls.length)return;const l=ls[i++];const h=l.length>>1;
         fs.appendFileSync(${JSON.stringify(file)},l.slice(0,h));
         setTimeout(()=>{fs.appendFileSync(${JSON.stringify(file)},l.slice(h));setTimeout(next,2)},2)};next();`,
        JSON.stringify(lines),
      ],
      { stdio: "ignore" },
    );
    const finished = new Promise((resolve) => writer.on("close", resolve));
    await new Promise((r) => setTimeout(r, 150));
    const during = cli(["--db", db, "import", "--from", "codex", "--json", root]);
    expect([0, 8]).toContain(during.code);
    await finished;
    const after = cli(["--db", db, "import", "--from", "codex", "--json", root]);
    expect([0, 8]).toContain(after.code);
    expect(json(during).messages + json(after).messages).toBe(33 + 1 + 200);
    withStore(db, (store) => {
      expect(store.getMessages(id).map((m) => m.content)).toEqual(lines.map((_, i) => `turn ${i} ünï`));
    });
  });

  it("--watch brings new lines into search within seconds, and SIGINT ends it with exit 0", async () => {
    const { root, db } = codexHome();
    const id = "0195a1b2-cccc-7e5f-8a9b-0c1d2e3f4a5f";
    const file = path.join(root, `2026/04/02/rollout-2026-04-02T10-00-00-${id}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, META(id) + line(1, "user", "first question"));
    const { child, closed } = startCli(["--db", db, "import", "--from", "codex", "--watch", root]);
    const searchFor = async (word: string) => {
      for (let i = 0; i < 100; i++) {
        const r = cli(["--db", db, "search", word, "--json"]);
        if (r.code === 0 && JSON.stringify(json(r)).includes(id)) return true;
        await new Promise((res) => setTimeout(res, 100));
      }
      return false;
    };
    expect(await searchFor("first")).toBe(true);
    fs.appendFileSync(file, line(2, "assistant", "zanzibarian answer"));
    const at = Date.now();
    expect(await searchFor("zanzibarian")).toBe(true);
    expect(Date.now() - at).toBeLessThan(5000);
    child.kill("SIGINT");
    const { code, stderr } = await closed;
    expect(code, stderr).toBe(0);
  }, 30_000);
});
