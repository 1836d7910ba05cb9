/**
 * A Claude Code transcript as the SDK hands it to a SessionStore: one entry per JSONL line, in
 * the documented line shape (a user prompt, an assistant response split into one line per
 * block with its usage repeated, a tool call and its result, non-message lines with and
 * without a uuid). Written for these tests.
 */
import type { SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";

export const MODEL = "claude-sonnet-4-5-20250929";

export function transcript(sessionId: string, cwd = "/srv/app"): SessionStoreEntry[] {
  const base = {
    sessionId,
    cwd,
    version: "2.1.3",
    gitBranch: "main",
    isSidechain: false,
    userType: "external",
  };
  const usage = {
    input_tokens: 12,
    output_tokens: 90,
    cache_creation_input_tokens: 400,
    cache_read_input_tokens: 3000,
  };
  const uuid = (n: number) => `${sessionId.slice(0, 8)}-0000-4000-8000-${String(n).padStart(12, "0")}`;
  const response = (n: number, block: unknown, stop: string | null) => ({
    ...base,
    type: "assistant",
    uuid: uuid(n),
    parentUuid: uuid(n - 1),
    timestamp: `2026-05-01T10:00:0${n}.000Z`,
    requestId: "req_011CUa",
    message: {
      id: "msg_01XY",
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [block],
      stop_reason: stop,
      usage,
    },
  });
  return [
    {
      type: "file-history-snapshot",
      messageId: uuid(1),
      snapshot: { trackedFileBackups: {} },
      isSnapshotUpdate: false,
    },
    {
      ...base,
      type: "user",
      uuid: uuid(1),
      parentUuid: null,
      timestamp: "2026-05-01T10:00:01.000Z",
      message: { role: "user", content: "Wie viele Zeilen hat README.md? 🧮" },
    },
    response(2, { type: "thinking", thinking: "wc -l will tell.", signature: "sig" }, null),
    response(
      3,
      { type: "tool_use", id: "toolu_wc", name: "Bash", input: { command: "wc -l README.md" } },
      "tool_use",
    ),
    {
      ...base,
      type: "user",
      uuid: uuid(4),
      parentUuid: uuid(3),
      timestamp: "2026-05-01T10:00:04.000Z",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_wc", content: "42 README.md" }],
      },
      toolUseResult: { stdout: "42 README.md", stderr: "", interrupted: false },
    },
    {
      ...base,
      type: "assistant",
      uuid: uuid(5),
      parentUuid: uuid(4),
      timestamp: "2026-05-01T10:00:05.000Z",
      requestId: "req_011CUb",
      message: {
        id: "msg_01XZ",
        role: "assistant",
        model: MODEL,
        content: [{ type: "text", text: "README.md hat 42 Zeilen." }],
        stop_reason: "end_turn",
        usage: {
          input_tokens: 5,
          output_tokens: 10,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 3400,
        },
      },
    },
    { type: "custom-title", customTitle: "Zeilen zählen", sessionId },
  ];
}
