import { describe, expect, it } from "vitest";
import { codex, type MappedItem } from "../src/index.js";
import { readJsonLines } from "./support/lines.js";

const MAIN = "2026/03/14/rollout-2026-03-14T09-30-00-0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl";
const SUBAGENT = "2026/03/15/rollout-2026-03-15T08-00-00-0195a1b2-ffff-7e5f-8a9b-0c1d2e3f4a5c.jsonl";
const fixture = (path: string) => new URL(`./fixtures/codex/${path}`, import.meta.url);

/** Every parsed line of a fixture through one fresh mapper, as the importer feeds them. */
function mapFile(path: string): { mapped: MappedItem[]; broken: number[]; truncated: boolean } {
  const read = readJsonLines(fixture(path));
  const mapper = codex.mapper(path);
  return {
    mapped: read.lines.map((l) => mapper.map(l.value, l.position)),
    broken: read.broken,
    truncated: read.truncated,
  };
}

describe("codex rollout lines", () => {
  it("names its files under .codex/sessions", () => {
    expect(codex.name).toBe("codex");
    expect(codex.defaultRoots).toEqual([".codex/sessions"]);
    expect(codex.isSessionFile(MAIN)).toBe(true);
    expect(codex.isSessionFile("2026/03/14/notes.jsonl")).toBe(false);
    expect(codex.isSessionFile("rollout-x.jsonl")).toBe(false);
    expect(codex.isSessionFile("2026/03/14/rollout-x.json")).toBe(false);
  });

  it("maps every line of the main fixture to one row, with exact counts", () => {
    const { mapped, broken, truncated } = mapFile(MAIN);
    expect(broken).toEqual([28]);
    expect(truncated).toBe(true);
    const rows = mapped.flatMap((m) => m.messages);
    expect(rows).toHaveLength(28);
    const active = rows.filter((r) => r.active !== false);
    expect(active.map((r) => r.role)).toEqual([
      "developer",
      "user",
      "user",
      "assistant",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "assistant",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(
      active
        .flatMap((r) => r.toolCalls ?? [])
        .map((c) => (c as { function: { name: string } }).function.name),
    ).toEqual(["shell", "apply_patch", "local_shell", "web_search"]);
    const results = active.filter((r) => r.role === "tool");
    expect(results.map((r) => [r.toolCallId, r.toolName])).toEqual([
      ["call_shell_1", "shell"],
      ["call_patch_2", "apply_patch"],
    ]);
    expect(mapped.map((m) => m.unknown).filter(Boolean)).toEqual(["ghost_snapshot", "world_state"]);
    expect(rows.map((r) => r.externalId)).toEqual([
      ...Array.from({ length: 27 }, (_, i) => `line:${i + 1}`),
      "line:29",
    ]);
    expect(rows.every((r) => r.original?.format === "codex")).toBe(true);
  });

  it("keeps text, non-ASCII, reasoning and timestamps", () => {
    const rows = mapFile(MAIN).mapped.flatMap((m) => m.messages);
    const user = rows[4];
    expect(user?.content).toBe("Fix the failing width test in src/ünïcode.ts — 日本語の幅が間違っている 🙃");
    expect(user?.timestamp).toBe(Date.parse("2026-03-14T09:30:05.010Z") / 1000);
    expect(rows[6]?.reasoning).toContain("East Asian width table");
    // The event_msg copies of messages hold no text of their own: search finds each text once.
    expect(rows[5]).toMatchObject({ role: "system", content: null, active: false });
    expect(rows[22]).toMatchObject({ active: false, content: expect.stringContaining("Summary so far") });
    expect(rows[0]?.original?.value).toEqual(readJsonLines(fixture(MAIN)).lines[0]?.value);
  });

  it("counts usage per model once: differences of the cumulative totals", () => {
    const rows = mapFile(MAIN).mapped.flatMap((m) => m.messages);
    const usage = rows.flatMap((r) => (r.usage ? [r.usage] : []));
    expect(usage).toEqual([
      {
        model: "gpt-5-codex",
        provider: "openai",
        inputTokens: 800,
        cacheReadTokens: 200,
        outputTokens: 100,
        reasoningTokens: 40,
      },
      {
        model: "gpt-5-codex",
        provider: "openai",
        inputTokens: 500,
        cacheReadTokens: 1000,
        outputTokens: 200,
        reasoningTokens: 50,
      },
      {
        model: "gpt-5",
        provider: "openai",
        inputTokens: 700,
        cacheReadTokens: 800,
        outputTokens: 200,
        reasoningTokens: 10,
      },
    ]);
    // Summed, they are the last totals the file holds (input 4000 of which 2000 cached, output 500).
    const sum = (k: "inputTokens" | "cacheReadTokens" | "outputTokens") =>
      usage.reduce((s, u) => s + (u[k] ?? 0), 0);
    expect([
      sum("inputTokens") + sum("cacheReadTokens"),
      sum("cacheReadTokens"),
      sum("outputTokens"),
    ]).toEqual([4000, 2000, 500]);
  });

  it("tells the session: id, cwd, git, model, title; a subagent's parent", () => {
    const facts = mapFile(MAIN)
      .mapped.map((m) => m.session)
      .filter(Boolean);
    expect(facts[0]).toMatchObject({
      id: "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
      source: "codex",
      cwd: "/home/rin/projects/tally",
      startedAt: Date.parse("2026-03-14T09:30:00.000Z") / 1000,
      metadata: { codex: { model_provider: "openai", git: { branch: "fix/unicode-width" } } },
    });
    expect(facts.find((f) => f?.model)?.model).toBe("gpt-5-codex");
    expect(facts.find((f) => f?.title)?.title).toBe("Fix East Asian width");
    const sub = mapFile(SUBAGENT).mapped[0]?.session;
    expect(sub).toMatchObject({
      id: "0195a1b2-ffff-7e5f-8a9b-0c1d2e3f4a5c",
      parentSessionId: "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
    });
  });

  it("takes the session id from the file name when the first line is no session_meta", () => {
    const mapped = codex
      .mapper(SUBAGENT)
      .map({ timestamp: "2026-03-15T08:00:00Z", type: "turn_context", payload: { model: "o3" } }, 1);
    expect(mapped.session).toMatchObject({
      id: "0195a1b2-ffff-7e5f-8a9b-0c1d2e3f4a5c",
      source: "codex",
      model: "o3",
    });
  });

  it("keeps a line that is no object as an unknown inactive row", () => {
    const mapped = codex.mapper(MAIN).map(42, 3);
    expect(mapped.unknown).toBe("(none)");
    expect(mapped.messages).toEqual([
      {
        role: "system",
        content: null,
        active: false,
        externalId: "line:3",
        original: { format: "codex", value: 42 },
      },
    ]);
  });
});
