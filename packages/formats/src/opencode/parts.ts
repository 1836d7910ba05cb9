/**
 * One opencode part as sessiondb rows. Every row's `externalId` is the part's id (a tool's
 * result row: `<part id>#result`), so a re-import stores nothing twice; the first row of a part
 * holds the part as its original (`{ format: "opencode", value: part }`, ids included as opencode
 * hydrates it), the result row of a tool none (the part is given back once).
 * - `text`: a row in the message's role (`ignored`: the user's text opencode did not send:
 *   inactive).
 * - `reasoning`: an assistant row with `reasoning`.
 * - `tool`: an assistant row with the call in `toolCalls` (`{ id: callID, type: "function",
 *   function: { name: tool, arguments } }`) and, once it `completed` or ended in `error`, a `tool`
 *   row with the output (or error) paired by `toolCallId`.
 * - `step-finish`: an inactive row with the step's usage (its tokens and the cost opencode
 *   recorded): opencode adds every step's usage to its session totals, and a message's own
 *   `tokens` are only its last step's, so steps are what is counted, never the message too.
 * - `step-start`, `file`, `agent`, `subtask`, `snapshot`, `patch`, `retry`, `compaction`:
 *   inactive rows (a name, a prompt, a file list searchable); any other type too, counted as
 *   unknown.
 */
import type { Json, MessageInput, UsageInput } from "@sessiondb/core";
import { count, type Obj, OPENCODE_FORMAT, obj, seconds, text } from "./records.js";

/** What a part's rows need to know of its message. */
export interface PartPlace {
  messageId: string;
  sessionId: string;
  role: "user" | "assistant";
  /** The message's creation, epoch seconds: a part without a time of its own gets it. */
  timestamp?: number;
  /** The model and provider of an assistant message, which its steps' usage is charged to. */
  model?: string;
  provider?: string;
  /** The message is still being written by opencode (an assistant message not completed):
   * a part still streaming (text without an end, a tool not finished) is left for a later run. */
  open: boolean;
}

/** Part types that are no conversation row but known: kept inactive, not counted as unknown. */
const KEPT = new Set(["step-start", "file", "agent", "subtask", "snapshot", "patch", "retry", "compaction"]);

export interface PartRows {
  rows: MessageInput[];
  /** The part's type, when it is not one of opencode's known ones. */
  unknown?: string;
}

export function partRows(id: string, data: Obj, place: PartPlace): PartRows {
  const type = typeof data.type === "string" ? data.type : "(none)";
  const base: MessageInput = {
    role: place.role,
    externalId: id,
    original: {
      format: OPENCODE_FORMAT,
      value: { ...data, id, messageID: place.messageId, sessionID: place.sessionId } as Json,
    },
  };
  const at = seconds(obj(data.time).start) ?? seconds(obj(obj(data.state).time).start) ?? place.timestamp;
  if (at !== undefined) base.timestamp = at;
  const streaming = place.open && obj(data.time).end === undefined;
  switch (type) {
    case "text":
      if (streaming && place.role === "assistant") return { rows: [] }; // still being written: left for a later run
      return {
        rows: [
          {
            ...base,
            content: typeof data.text === "string" ? data.text : null,
            ...(data.ignored === true ? { active: false } : {}),
            ...(data.synthetic === true ? { metadata: { synthetic: true } } : {}),
          },
        ],
      };
    case "reasoning":
      if (streaming) return { rows: [] }; // still being written: left for a later run
      return { rows: [{ ...base, role: "assistant", content: null, reasoning: text(data.text) ?? null }] };
    case "tool":
      return toolRows(id, data, base, place);
    case "step-finish": {
      const row: MessageInput = { ...base, role: "assistant", content: null, active: false };
      if (typeof data.reason === "string") row.finishReason = data.reason;
      const usage = stepUsage(data, place);
      if (usage !== undefined) row.usage = usage;
      return { rows: [row] };
    }
    default:
      return {
        rows: [{ ...base, content: keptText(type, data), active: false }],
        ...(KEPT.has(type) ? {} : { unknown: type }),
      };
  }
}

/** A tool part: its call, and its result once it has one. */
function toolRows(id: string, data: Obj, base: MessageInput, place: PartPlace): PartRows {
  const state = obj(data.state);
  const status = state.status;
  const done = status === "completed" || status === "error";
  if (!done && place.open) return { rows: [] }; // still being written: left for a later run
  const name = text(data.tool) ?? "unknown";
  const callId = text(data.callID) ?? id;
  const call: MessageInput = {
    ...base,
    role: "assistant",
    content: null,
    toolCalls: [
      { id: callId, type: "function", function: { name, arguments: JSON.stringify(state.input ?? {}) } },
    ],
  };
  if (!done) return { rows: [call] };
  const result: MessageInput = {
    role: "tool",
    externalId: `${id}#result`,
    toolCallId: callId,
    toolName: name,
    content:
      status === "completed"
        ? typeof state.output === "string"
          ? state.output
          : null
        : String(state.error ?? ""),
  };
  const end = seconds(obj(state.time).end) ?? base.timestamp;
  if (end !== undefined) result.timestamp = end;
  const metadata: { [key: string]: Json } = {};
  if (status === "error") metadata.isError = true;
  if (text(state.title) !== undefined) metadata.title = state.title as string;
  if (Object.keys(metadata).length > 0) result.metadata = metadata;
  return { rows: [call, result] };
}

/** A step's usage as opencode counted it: input without the cache reads and writes (opencode
 * subtracts them, so the counters are disjoint as sessiondb's are), output, reasoning, and the
 * cost it recorded. */
function stepUsage(data: Obj, place: PartPlace): UsageInput | undefined {
  return usageOf(data.tokens, data.cost, place);
}

/** Usage from an opencode `tokens` object and `cost`, or undefined when it holds nothing. */
export function usageOf(tokens: unknown, cost: unknown, place: PartPlace): UsageInput | undefined {
  const t = obj(tokens);
  const cache = obj(t.cache);
  const usage: UsageInput = {
    model: place.model ?? "unknown",
    inputTokens: count(t.input),
    outputTokens: count(t.output),
    reasoningTokens: count(t.reasoning),
    cacheReadTokens: count(cache.read),
    cacheWriteTokens: count(cache.write),
  };
  if (place.provider !== undefined) usage.provider = place.provider;
  const recorded = typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? cost : undefined;
  if (recorded !== undefined) usage.costUsd = recorded;
  const tokensSeen =
    (usage.inputTokens ?? 0) +
    (usage.outputTokens ?? 0) +
    (usage.reasoningTokens ?? 0) +
    (usage.cacheReadTokens ?? 0) +
    (usage.cacheWriteTokens ?? 0);
  return tokensSeen === 0 && !recorded ? undefined : usage;
}

/** The searchable text of a kept part. */
function keptText(type: string, data: Obj): string | null {
  switch (type) {
    case "file":
      return text(data.filename) ?? text(obj(obj(data.source).text).value) ?? null;
    case "agent":
      return text(data.name) ?? null;
    case "subtask":
      return [text(data.description), text(data.prompt)].filter((s) => s !== undefined).join("\n\n") || null;
    case "patch":
      return Array.isArray(data.files)
        ? data.files.filter((f) => typeof f === "string").join("\n") || null
        : null;
    case "retry":
      return text(obj(data.error).message) ?? text(obj(obj(data.error).data).message) ?? null;
    default:
      return null;
  }
}
