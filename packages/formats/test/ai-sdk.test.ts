/**
 * The UIMessage mapping part by part: what each part type and tool state becomes in the rows,
 * usage from metadata, unknown types kept and named, and the JSON checks that name the path.
 * (The binding's tests drive the same mapping through the real AI SDK.)
 */
import { InvalidInputError } from "@sessiondb/core";
import { describe, expect, it } from "vitest";
import { mapUIMessage, toolRowKey, uiMessageMapper } from "../src/index.js";

const tool = (state: string, extra: Record<string, unknown> = {}) => ({
  type: "tool-search",
  toolCallId: "c1",
  state,
  input: { q: "sqlite" },
  ...extra,
});

function errorOf(action: () => unknown): InvalidInputError {
  try {
    action();
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error("expected an InvalidInputError");
}

describe("mapUIMessage", () => {
  it("a user message: its text, searchable; the message itself as the original", () => {
    const message = {
      id: "u1",
      role: "user",
      parts: [
        { type: "text", text: "look at this" },
        { type: "file", mediaType: "image/png", url: "data:image/png;base64,AAAA", filename: "a.png" },
        { type: "text", text: "please" },
      ],
    };
    const { messages, unknown } = mapUIMessage(message, "m");
    expect(unknown).toBeUndefined();
    expect(messages).toEqual([
      {
        role: "user",
        content: "look at this\n\nplease",
        reasoning: null,
        toolCalls: null,
        externalId: "u1",
        original: { format: "ai-sdk", value: message },
        usage: null,
      },
    ]);
  });

  it("tool parts become calls; a row per outcome (output, error, denial), none while waiting", () => {
    const parts = [
      { type: "step-start" },
      { type: "reasoning", text: "first think", state: "done" },
      tool("input-streaming", { input: undefined, rawInput: '{"q":"sq' }),
      { ...tool("input-available"), toolCallId: "c2" },
      { ...tool("approval-requested", { approval: { id: "ap" } }), toolCallId: "c3" },
      { ...tool("output-available", { output: { hits: 3 } }), toolCallId: "c4" },
      { ...tool("output-available", { output: "plain text" }), toolCallId: "c5" },
      { ...tool("output-error", { errorText: "boom" }), toolCallId: "c6" },
      {
        ...tool("output-denied", { approval: { id: "ap7", approved: false, reason: "no" } }),
        toolCallId: "c7",
      },
      {
        type: "dynamic-tool",
        toolName: "mcp_lookup",
        toolCallId: "c8",
        state: "output-available",
        input: {},
        output: 1,
      },
      { type: "source-url", sourceId: "s", url: "https://example.com" },
      { type: "data-weather", data: { c: 1 } },
      { type: "text", text: "done" },
    ];
    const { messages, unknown } = mapUIMessage({ id: "a1", role: "assistant", parts }, "m");
    expect(unknown).toBeUndefined();
    const [row, ...results] = messages;
    expect(row?.content).toBe("done");
    expect(row?.reasoning).toBe("first think");
    expect(row?.toolCalls).toEqual([
      { id: "c1", type: "function", function: { name: "search", arguments: '{"q":"sq' } },
      ...["c2", "c3", "c4", "c5", "c6", "c7"].map((id) => ({
        id,
        type: "function",
        function: { name: "search", arguments: '{"q":"sqlite"}' },
      })),
      { id: "c8", type: "function", function: { name: "mcp_lookup", arguments: "{}" } },
    ]);
    expect(results).toEqual([
      { role: "tool", toolName: "search", toolCallId: "c4", externalId: "a1/tool/c4", content: '{"hits":3}' },
      { role: "tool", toolName: "search", toolCallId: "c5", externalId: "a1/tool/c5", content: "plain text" },
      {
        role: "tool",
        toolName: "search",
        toolCallId: "c6",
        externalId: "a1/tool/c6",
        content: "boom",
        metadata: { isError: true },
      },
      {
        role: "tool",
        toolName: "search",
        toolCallId: "c7",
        externalId: "a1/tool/c7",
        content: "denied: no",
        metadata: { denied: true },
      },
      {
        role: "tool",
        toolName: "mcp_lookup",
        toolCallId: "c8",
        externalId: toolRowKey("a1", "c8"),
        content: "1",
      },
    ]);
  });

  it("part types it does not know are kept in the original and named, never refused", () => {
    const message = {
      id: "a",
      role: "assistant",
      parts: [{ type: "hologram", x: [1] }, { type: "smell" }, { type: "hologram" }],
    };
    const mapped = mapUIMessage(message, "m");
    expect(mapped.unknown).toBe("hologram,smell");
    expect(mapped.messages[0]?.original?.value).toEqual(message);
    expect(mapped.messages[0]?.content).toBeNull();
  });

  it("usage from the metadata the app set: input without the cached part, with the model", () => {
    const usage = {
      inputTokens: 120,
      inputTokenDetails: { noCacheTokens: 90, cacheReadTokens: 20, cacheWriteTokens: 10 },
      outputTokens: 40,
      outputTokenDetails: { textTokens: 30, reasoningTokens: 10 },
      totalTokens: 160,
    };
    const at = (metadata: unknown) =>
      mapUIMessage({ id: "a", role: "assistant", parts: [], metadata }, "m").messages[0]?.usage;
    expect(at({ model: "gpt-x", provider: "openai", usage })).toEqual({
      model: "gpt-x",
      provider: "openai",
      inputTokens: 90,
      outputTokens: 40,
      cacheReadTokens: 20,
      cacheWriteTokens: 10,
      reasoningTokens: 10,
    });
    // Without noCacheTokens: the total less the cached ones.
    expect(at({ model: "m", usage: { inputTokens: 50, inputTokenDetails: { cacheReadTokens: 5 } } })).toEqual(
      {
        model: "m",
        inputTokens: 45,
        cacheReadTokens: 5,
      },
    );
    expect(at({ usage })).toBeNull();
    expect(at({ model: "m" })).toBeNull();
    expect(at("just a string")).toBeNull();
  });

  it("keeps keys JSON can hold (__proto__ included) and drops undefined ones, as JSON does", () => {
    const metadata = JSON.parse('{"__proto__": {"polluted": true}, "kept": 1}');
    const mapped = mapUIMessage({ id: "u", role: "user", parts: [], metadata, gone: undefined }, "m");
    const value = mapped.messages[0]?.original?.value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["id", "role", "parts", "metadata"]);
    expect(JSON.stringify(value.metadata)).toBe('{"__proto__":{"polluted":true},"kept":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses what the SDK could never produce, naming the path", () => {
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 70; i++) at = at.next = {};
    const cases: [unknown, string][] = [
      [null, "m"],
      [[], "m"],
      [{ role: "user", parts: [] }, "m.id"],
      [{ id: "x".repeat(501), role: "user", parts: [] }, "m.id"],
      [{ id: "u", role: "tool", parts: [] }, "m.role"],
      [{ id: "u", role: "user" }, "m.parts"],
      [{ id: "u", role: "user", parts: [null] }, "m.parts[0]"],
      [{ id: "u", role: "user", parts: [{ type: 7 }] }, "m.parts[0]"],
      [{ id: "u", role: "user", parts: [], metadata: { n: Number.NaN } }, "m.metadata.n"],
      [{ id: "u", role: "user", parts: [], metadata: { f: () => 1 } }, "m.metadata.f"],
      [{ id: "u", role: "user", parts: [], metadata: { big: 10n } }, "m.metadata.big"],
      [{ id: "u", role: "user", parts: [], metadata: { map: new Map() } }, "m.metadata.map"],
      [{ id: "u", role: "user", parts: [], metadata: deep }, `m.metadata${".next".repeat(63)}`],
      [
        { id: "u", role: "user", parts: [{ type: "tool-x", state: "output-available" }] },
        "m.parts[0].toolCallId",
      ],
      [
        {
          id: "u".repeat(400),
          role: "assistant",
          parts: [{ ...tool("output-available"), toolCallId: "c".repeat(100) }],
        },
        "m.parts[0].toolCallId",
      ],
    ];
    for (const [value, field] of cases)
      expect(errorOf(() => mapUIMessage(value, "m")).field, field).toBe(field);
  });

  it("refuses a cycle and a message past 16 MiB before copying it", () => {
    const parts: unknown[] = [{ type: "text", text: "x" }];
    parts.push({ type: "data-loop", data: { parts } });
    expect(errorOf(() => mapUIMessage({ id: "u", role: "user", parts }, "m")).field).toBe(
      "m.parts[1].data.parts",
    );
    const big = {
      id: "u",
      role: "user",
      parts: [
        { type: "text", text: "y".repeat(10 * 1024 * 1024) },
        { type: "text", text: "z".repeat(7 * 1024 * 1024) },
      ],
    };
    expect(errorOf(() => mapUIMessage(big, "m")).field).toBe("m.parts[1].text");
    // The same object twice (no cycle) is fine.
    const shared = { type: "text", text: "again" };
    expect(mapUIMessage({ id: "u", role: "user", parts: [shared, shared] }, "m").messages[0]?.content).toBe(
      "again\n\nagain",
    );
  });

  it("uiMessageMapper names each message by its position", () => {
    const mapper = uiMessageMapper();
    expect(mapper.map({ id: "u", role: "user", parts: [] }, 0).messages[0]?.externalId).toBe("u");
    expect(errorOf(() => mapper.map({ id: "u", role: "nobody", parts: [] }, 4)).field).toBe(
      "messages[4].role",
    );
  });
});
