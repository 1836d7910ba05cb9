import { describe, expect, it } from "vitest";
import { openaiAgentsMapper } from "../src/index.js";

/** Items written as plain objects (this package does not depend on the SDK). */
type AgentInputItem = { [key: string]: unknown };

/** One item of every AgentInputItem type (as the Agents SDK 0.20 builds them). */
const ITEMS: AgentInputItem[] = [
  { role: "system", content: "You are terse." },
  {
    type: "message",
    role: "user",
    content: [
      { type: "input_text", text: "Wetter in Zürich?" },
      { type: "input_image", image: "https://example.test/a.png" },
    ],
  },
  {
    type: "reasoning",
    id: "rs_1",
    content: [{ type: "input_text", text: "Need the weather tool." }],
    rawContent: [{ type: "reasoning_text", text: "raw thought" }],
    providerData: { encrypted: "x" },
  },
  {
    type: "function_call",
    id: "fc_1",
    callId: "call_w",
    name: "weather",
    arguments: '{"city":"Zürich"}',
    status: "completed",
  },
  {
    type: "function_call_result",
    callId: "call_w",
    name: "weather",
    status: "completed",
    output: { type: "text", text: "12°C, Nebel" },
  },
  {
    type: "hosted_tool_call",
    id: "ws_1",
    name: "web_search_call",
    arguments: '{"query":"Zürich Nebel"}',
    status: "completed",
    output: "Fog is common in autumn.",
  },
  { type: "computer_call", callId: "cc_1", status: "completed", action: { type: "screenshot" } },
  {
    type: "computer_call_result",
    callId: "cc_1",
    output: { type: "computer_screenshot", data: "data:image/png;base64,AAAA" },
  },
  { type: "shell_call", callId: "sh_1", status: "completed", action: { commands: ["ls -la"] } },
  {
    type: "shell_call_output",
    callId: "sh_1",
    output: [{ stdout: "total 0", stderr: "", outcome: { type: "exit", exitCode: 0 } }],
  },
  {
    type: "apply_patch_call",
    callId: "ap_1",
    status: "completed",
    operation: { type: "create_file", path: "a.txt", diff: "+hi" },
  },
  { type: "apply_patch_call_output", callId: "ap_1", status: "completed", output: "created a.txt" },
  {
    type: "message",
    role: "assistant",
    id: "msg_1",
    status: "completed",
    content: [
      { type: "output_text", text: "12°C und Nebel." },
      { type: "refusal", refusal: "no more" },
    ],
  },
  { type: "compaction", encrypted_content: "opaque" },
  { type: "unknown", providerData: { type: "future_thing", x: 1 } },
  { type: "brand_new_type", payload: 1 } as unknown as AgentInputItem,
];

describe("OpenAI Agents items", () => {
  const mapper = openaiAgentsMapper();
  const mapped = ITEMS.map((item, i) => mapper.map(item, i));
  const rows = mapped.map((m) => {
    expect(m.messages).toHaveLength(1);
    return m.messages[0] as NonNullable<(typeof m.messages)[0]>;
  });

  it("one row each, keeping the item as its original", () => {
    expect(rows.map((r) => r.original)).toEqual(ITEMS.map((value) => ({ format: "openai-agents", value })));
    expect(rows.map((r) => r.externalId)).toEqual([
      "item:0",
      "item:1",
      "rs_1",
      "fc_1",
      "item:4",
      "ws_1",
      "item:6",
      "item:7",
      "item:8",
      "item:9",
      "item:10",
      "item:11",
      "msg_1",
      "item:13",
      "item:14",
      "item:15",
    ]);
  });

  it("roles, text, tool calls paired with their results", () => {
    expect(rows.map((r) => [r.role, r.active ?? true])).toEqual([
      ["system", true],
      ["user", true],
      ["assistant", true],
      ["assistant", true],
      ["tool", true],
      ["assistant", true],
      ["assistant", true],
      ["tool", true],
      ["assistant", true],
      ["tool", true],
      ["assistant", true],
      ["tool", true],
      ["assistant", true],
      ["assistant", false],
      ["assistant", false],
      ["assistant", false],
    ]);
    expect(rows[1]?.content).toBe("Wetter in Zürich?\n[image]");
    expect(rows[2]).toMatchObject({ content: null, reasoning: "Need the weather tool.\nraw thought" });
    expect(rows[3]?.toolCalls).toEqual([
      { id: "call_w", type: "function", function: { name: "weather", arguments: '{"city":"Zürich"}' } },
    ]);
    expect(rows[4]).toMatchObject({ toolCallId: "call_w", toolName: "weather", content: "12°C, Nebel" });
    expect(rows[5]).toMatchObject({
      content: "Fog is common in autumn.",
      toolCalls: [{ id: "ws_1", function: { name: "web_search_call" } }],
    });
    expect(rows[6]?.toolCalls).toEqual([
      { id: "cc_1", type: "function", function: { name: "computer", arguments: '{"type":"screenshot"}' } },
    ]);
    expect(rows[7]).toMatchObject({ toolCallId: "cc_1", toolName: "computer", content: "[image]" });
    expect(rows[9]).toMatchObject({ toolCallId: "sh_1", toolName: "shell", content: "total 0" });
    expect(rows[11]).toMatchObject({ toolCallId: "ap_1", toolName: "apply_patch", content: "created a.txt" });
    expect(rows[12]?.content).toBe("12°C und Nebel.\nno more");
  });

  it("counts the types it does not know; a compaction is known but no message", () => {
    expect(mapped.map((m) => m.unknown)).toEqual([...Array(14).fill(undefined), "unknown", "brand_new_type"]);
  });

  it("names a Responses output's tool from the call seen before it", () => {
    const m = openaiAgentsMapper();
    m.map({ type: "function_call", call_id: "c1", name: "grep", arguments: "{}" }, 0);
    expect(
      m.map({ type: "function_call_output", call_id: "c1", output: "hit" }, 1).messages[0],
    ).toMatchObject({
      role: "tool",
      toolCallId: "c1",
      toolName: "grep",
      content: "hit",
    });
    expect(
      m.map({ type: "function_call_output", call_id: "c9", output: [{ type: "input_text", text: "x" }] }, 2)
        .messages[0],
    ).toMatchObject({
      toolCallId: "c9",
      toolName: null,
      content: "x",
    });
  });
});
