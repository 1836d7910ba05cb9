import { describe, expect, it } from "vitest";
import { ClaudeCodeLines, claudeCode, type MappedItem } from "../src/index.js";
import { readJsonLines } from "./support/lines.js";

const SESSION = "3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f";
const MAIN = `-home-ada-src-widget/${SESSION}.jsonl`;
const SUBAGENT = `-home-ada-src-widget/${SESSION}/subagents/agent-a1b2c3d.jsonl`;
const fixture = (path: string) => new URL(`./fixtures/claude-code/${path}`, import.meta.url);

/** Every parsed line of a fixture through one fresh mapper, as the importer feeds them. */
function mapFile(path: string) {
  const read = readJsonLines(fixture(path));
  const mapper = claudeCode.mapper(path);
  const mapped: MappedItem[] = read.lines.map((l) => mapper.map(l.value, l.position));
  return { mapped, rows: mapped.flatMap((m) => m.messages), read };
}

/** Usage per model as the store would sum it: [model, calls, input, output, cache write, cache read]. */
function usageByModel(mapped: MappedItem[]) {
  const sums = new Map<string, number[]>();
  for (const u of mapped.flatMap((m) => m.messages).flatMap((r) => (r.usage ? [r.usage] : []))) {
    const s = sums.get(u.model) ?? [0, 0, 0, 0, 0];
    const add = [1, u.inputTokens ?? 0, u.outputTokens ?? 0, u.cacheWriteTokens ?? 0, u.cacheReadTokens ?? 0];
    sums.set(
      u.model,
      s.map((v, i) => v + (add[i] as number)),
    );
  }
  return [...sums].map(([model, s]) => [model, ...s]).sort();
}

describe("claude code transcript lines", () => {
  it("names its files under .claude/projects, subagents included", () => {
    expect(claudeCode.name).toBe("claude-code");
    expect(claudeCode.defaultRoots).toEqual([".claude/projects"]);
    expect(claudeCode.isSessionFile(MAIN)).toBe(true);
    expect(claudeCode.isSessionFile(SUBAGENT)).toBe(true);
    expect(claudeCode.isSessionFile(`${SESSION}.jsonl`)).toBe(false);
    expect(claudeCode.isSessionFile(`p/${SESSION}.json`)).toBe(false);
    expect(claudeCode.isSessionFile(`p/${SESSION}/tool-results/x.jsonl`)).toBe(false);
    expect(claudeCode.isSessionFile(`p/${SESSION}/subagents/deeper/agent-x.jsonl`)).toBe(false);
  });

  it("maps every line of the main fixture, with exact counts", () => {
    const { mapped, rows, read } = mapFile(MAIN);
    expect(read.broken).toEqual([20]);
    expect(read.truncated).toBe(true);
    expect(read.lines).toHaveLength(22);
    expect(rows).toHaveLength(23);
    const active = rows.filter((r) => r.active !== false);
    expect(active.map((r) => r.role)).toEqual([
      "user",
      "assistant",
      "assistant",
      "assistant",
      "tool",
      "assistant",
      "assistant",
      "tool",
      "tool",
      "user",
      "assistant",
      "assistant",
      "assistant",
    ]);
    const calls = active.flatMap((r) => r.toolCalls ?? []) as { id: string; function: { name: string } }[];
    expect(calls.map((c) => [c.id, c.function.name])).toEqual([
      ["toolu_01Bash", "Bash"],
      ["toolu_02Read", "Read"],
      ["toolu_03Grep", "Grep"],
    ]);
    expect(
      JSON.parse((calls[0] as unknown as { function: { arguments: string } }).function.arguments),
    ).toEqual({
      command: "npm test -- width",
      description: "Run the width test",
    });
    const results = active.filter((r) => r.role === "tool");
    expect(results.map((r) => [r.toolCallId, r.toolName, r.metadata ?? null])).toEqual([
      ["toolu_01Bash", "Bash", null],
      ["toolu_02Read", "Read", null],
      ["toolu_03Grep", "Grep", { isError: true }],
    ]);
    expect(results[1]?.content).toBe("export const WIDE = [0x1100, 0x115f];\n\n[image]");
    expect(mapped.map((m) => m.unknown).filter(Boolean)).toEqual(["world-state"]);
    // One externalId per row, unique: the uuid, `#<i>` for a line's further results, `line:<n>`
    // for a line without a uuid.
    const ids = rows.map((r) => r.externalId);
    expect(new Set(ids).size).toBe(23);
    expect(ids[0]).toBe("line:1");
    expect(ids.slice(8, 10)).toEqual([
      "a0000000-0000-4000-8000-000000000008",
      "a0000000-0000-4000-8000-000000000008#1",
    ]);
    expect(ids.filter((id) => id?.startsWith("line:"))).toEqual([
      "line:1",
      "line:15",
      "line:16",
      "line:17",
      "line:23",
    ]);
    // Every line given back once: the first row of each line holds it as given.
    const originals = rows.filter((r) => r.original != null);
    expect(originals).toHaveLength(22);
    expect(originals.map((r) => r.original?.value)).toEqual(read.lines.map((l) => l.value));
    expect(originals.every((r) => r.original?.format === "claude-code")).toBe(true);
  });

  it("counts an assistant response's usage once per (message.id, requestId), per model", () => {
    const { mapped } = mapFile(MAIN);
    expect(usageByModel(mapped)).toEqual([
      ["claude-opus-4-5-20251101", 2, 15, 280, 1200, 11000],
      ["claude-sonnet-4-5-20250929", 1, 3, 50, 0, 7000],
    ]);
    const withUsage = mapped.flatMap((m) => m.messages).filter((r) => r.usage);
    expect(withUsage.map((r) => r.externalId)).toEqual([
      "a0000000-0000-4000-8000-000000000002",
      "a0000000-0000-4000-8000-000000000006",
      "a0000000-0000-4000-8000-000000000011",
    ]);
    expect(withUsage[0]?.usage?.provider).toBe("anthropic");
  });

  it("keeps text, non-ASCII and astral text, reasoning and timestamps", () => {
    const { rows } = mapFile(MAIN);
    expect(rows[1]).toMatchObject({
      role: "user",
      content: "Fix the width of 日本語 in src/ünïcode.ts — the emoji 🙃𝄞 counts wrong",
      timestamp: Date.parse("2026-03-14T09:30:01.000Z") / 1000,
    });
    expect(rows[2]).toMatchObject({
      content: null,
      reasoning: "The East Asian width table is probably stale.",
    });
    expect(rows[12]).toMatchObject({ reasoning: "[redacted thinking]", content: null });
    expect(rows[13]).toMatchObject({
      content: "The table misses U+1D11E 𝄞; widened it. Ça marche.",
      finishReason: "end_turn",
    });
    expect(rows[11]?.content).toBe("Here is the screenshot of the broken table\n\n[image]");
    // The meta line, the compaction marker and the summary are kept out of the conversation;
    // the texts of the latter two stay searchable.
    expect(rows[14]).toMatchObject({ role: "system", active: false });
    expect(rows[10]).toMatchObject({ active: false, content: "Conversation compacted" });
    expect(rows[15]).toMatchObject({ active: false, content: "Fixing East Asian width for 日本語" });
  });

  it("says what the session is: id, cwd, model, branch and version, start, title", () => {
    const { mapped } = mapFile(MAIN);
    const facts = mapped.flatMap((m) => (m.session ? [m.session] : []));
    expect(facts[0]).toEqual({ id: SESSION, source: "claude-code" });
    expect(facts[1]).toEqual({
      startedAt: Date.parse("2026-03-14T09:30:01.000Z") / 1000,
      cwd: "/home/ada/src/widget",
      metadata: { claudeCode: { gitBranch: "fix/width", version: "2.1.3" } },
    });
    expect(facts[2]).toEqual({ model: "claude-opus-4-5-20251101" });
    // Titles in order: the summary, the generated title, then the user's own, which wins.
    expect(facts.flatMap((f) => (f.title ? [f.title] : []))).toEqual([
      "Fixing East Asian width for 日本語",
      "Unicode width fix",
      "Width fix (ada)",
    ]);
  });

  it("maps a subagent's file to a child session of the main one", () => {
    const { mapped, rows } = mapFile(SUBAGENT);
    expect(mapped[0]?.session).toMatchObject({
      id: `${SESSION}/subagents/agent-a1b2c3d`,
      parentSessionId: SESSION,
      source: "claude-code",
      cwd: "/home/ada/src/widget",
      startedAt: Date.parse("2026-03-14T09:31:00.000Z") / 1000,
      metadata: { claudeCode: { gitBranch: "fix/width", version: "2.1.3", agentId: "a1b2c3d" } },
    });
    expect(rows.map((r) => [r.role, r.toolName ?? r.toolCalls?.length ?? null])).toEqual([
      ["user", null],
      ["assistant", 1],
      ["tool", "Glob"],
      ["assistant", null],
    ]);
    expect(usageByModel(mapped)).toEqual([["claude-haiku-4-5-20251001", 2, 60, 42, 0, 0]]);
  });

  it("keeps a huge tool output whole, and a line that is no object as an inactive row", () => {
    const mapper = new ClaudeCodeLines({ id: "s" });
    const big = "日本語🙃".repeat(500_000);
    const out = mapper.map(
      {
        type: "user",
        uuid: "u",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: big }] },
      },
      1,
    );
    expect(out.messages[0]?.content).toBe(big);
    expect(out.messages[0]?.toolName).toBeUndefined();
    expect(mapper.map(["not", "a", "line"], 2)).toEqual({
      messages: [
        {
          role: "system",
          content: null,
          active: false,
          externalId: "line:2",
          original: { format: "claude-code", value: ["not", "a", "line"] },
        },
      ],
      unknown: "(none)",
    });
  });
});
