/**
 * One OpenAI item as sessiondb rows: the Agents SDK's `AgentInputItem` (camelCase: `callId`,
 * `function_call_result`, `hosted_tool_call`) and the Responses API's own items as Codex writes
 * them (snake_case: `call_id`, `function_call_output`, `web_search_call`, `custom_tool_call`).
 * Both spellings are read by the same rules, so the binding and the Codex importer agree.
 *
 * Every item is one row: a message keeps its role and text; a tool call is an assistant row whose
 * `toolCalls` holds one call (`{ id, type: "function", function: { name, arguments } }`, what the
 * CLI and `serve` read); a tool result is a `tool` row with `toolCallId` and `toolName` (a
 * Responses output carries no name: it is taken from the call seen earlier, hence the state); a
 * hosted tool (web search, code interpreter, MCP…) ran on the provider and is one assistant row
 * with its call and its output as text; reasoning is an assistant row with `reasoning` only. A
 * compaction and any type these rules do not know become an inactive row, kept and counted.
 */
import type { Json, MessageInput, Original } from "@sessiondb/core";
import type { MappedItem } from "../mapped.js";
import { statePairs } from "../mapper-state.js";
import { contentText } from "./text.js";

type Item = { [key: string]: unknown };
type Row = Omit<MessageInput, "externalId" | "original">;

/** What the caller knows of the item beyond the item itself. */
export interface ItemPlace {
  /** Unique within the session (the item's id, a line number…), or null. */
  externalId: string | null;
  /** The item as its producer gave it (for Codex: the whole rollout line). */
  original: Original;
  /** Epoch seconds, when the producer says. */
  timestamp?: number;
}

const ROLES = new Set(["user", "assistant", "system", "developer"]);

/** Hosted tools of the Responses API: the item type, and the field that holds its input. */
const HOSTED: { [type: string]: string } = {
  web_search_call: "action",
  file_search_call: "queries",
  code_interpreter_call: "code",
  image_generation_call: "revised_prompt",
  mcp_call: "arguments",
  mcp_list_tools: "server_label",
  mcp_approval_request: "arguments",
};

/** Client-side calls whose input is not a JSON-text `arguments`: type → [tool name, input field]. */
const CALLS: { [type: string]: [string, string] } = {
  computer_call: ["computer", "action"],
  shell_call: ["shell", "action"],
  local_shell_call: ["local_shell", "action"],
  apply_patch_call: ["apply_patch", "operation"],
  program: ["program", "code"],
  tool_search_call: ["tool_search", "arguments"],
};

/** Results of those calls, and of function and custom tool calls. */
const RESULTS = new Set([
  "function_call_result",
  "function_call_output",
  "custom_tool_call_output",
  "computer_call_result",
  "computer_call_output",
  "shell_call_output",
  "local_shell_call_output",
  "apply_patch_call_output",
  "program_output",
  "tool_search_output",
  "mcp_approval_response",
]);

/** Maps one session's OpenAI items in order (state: the tool name of every call seen). */
export class OpenAIItems {
  #names = new Map<string, string>();

  /** The tool names by call id, for a mapper that goes on later (see ItemMapper.save). */
  save(): Json {
    return [...this.#names];
  }

  restore(state: Json | undefined): void {
    this.#names = new Map(statePairs(state, "tool names"));
  }

  map(item: unknown, place: ItemPlace): MappedItem {
    const { row, unknown } = this.#row(item);
    const message: MessageInput = { ...row, externalId: place.externalId, original: place.original };
    if (place.timestamp !== undefined) message.timestamp = place.timestamp;
    return unknown === undefined ? { messages: [message] } : { messages: [message], unknown };
  }

  #row(value: unknown): { row: Row; unknown?: string } {
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return { row: inactive(), unknown: typeof value };
    const item = value as Item;
    const type = typeof item.type === "string" ? item.type : undefined;
    if ((type === undefined || type === "message") && typeof item.role === "string" && ROLES.has(item.role))
      return { row: { role: item.role as Row["role"], content: contentText(item.content) } };
    if (type === undefined) return { row: inactive(), unknown: "(none)" };
    if (type === "function_call" || type === "custom_tool_call")
      return {
        row: this.#call(callId(item), str(item.name), type === "function_call" ? item.arguments : item.input),
      };
    if (type in CALLS) {
      const [name, field] = CALLS[type] as [string, string];
      return { row: this.#call(callId(item), name, item[field] ?? item.actions) };
    }
    if (RESULTS.has(type)) return { row: this.#result(item, type) };
    if (type === "hosted_tool_call")
      return { row: hosted(item, str(item.name), item.arguments, item.output) };
    if (type in HOSTED)
      return {
        row: hosted(item, type.replace(/_call$/, ""), item[HOSTED[type] as string], hostedOutput(item)),
      };
    if (type === "reasoning")
      return { row: { role: "assistant", content: null, reasoning: reasoningText(item) } };
    if (type === "compaction" || type === "compaction_summary") return { row: inactive() };
    return { row: inactive(), unknown: type };
  }

  #call(id: string, name: string, input: unknown): Row {
    if (id !== "") this.#names.set(id, name);
    const args = typeof input === "string" ? input : JSON.stringify(input ?? null);
    return {
      role: "assistant",
      content: null,
      toolCalls: [{ id, type: "function", function: { name, arguments: args } }],
    };
  }

  #result(item: Item, type: string): Row {
    const id = callId(item);
    const name = typeof item.name === "string" ? item.name : (this.#names.get(id) ?? resultName(type));
    return {
      role: "tool",
      toolCallId: id || null,
      toolName: name,
      content: outputText(item.output ?? item.tools ?? item.reason),
    };
  }
}

/** A row kept with the session but no part of its conversation. */
function inactive(): Row {
  return { role: "assistant", content: null, active: false };
}

function hosted(item: Item, name: string, input: unknown, output: unknown): Row {
  const id = str(item.id) || callId(item);
  const args = typeof input === "string" ? input : JSON.stringify(input ?? null);
  const call: Json = { id, type: "function", function: { name, arguments: args } };
  const text = outputText(output);
  return { role: "assistant", content: text === "" ? null : text, toolCalls: [call] };
}

/** What a hosted call's item says it produced, where that is text. */
function hostedOutput(item: Item): unknown {
  if (item.type === "code_interpreter_call") return item.outputs;
  if (item.type === "mcp_list_tools") return (item.tools as Item[] | undefined)?.map((t) => t?.name);
  return item.output ?? item.error ?? item.results;
}

/** The text of a tool output: a string, content parts, shell output entries, or JSON. */
function outputText(output: unknown): string {
  if (output === undefined || output === null) return "";
  if (typeof output === "string") return output;
  if (Array.isArray(output) && output.some((o) => o && typeof o === "object" && "stdout" in o))
    return output.map((o) => [str(o?.stdout), str(o?.stderr)].filter((s) => s !== "").join("\n")).join("\n");
  if (Array.isArray(output) && output.every((o) => typeof o === "string")) return output.join("\n");
  const text = contentText(output);
  if (text !== "") return text;
  // A Codex function output is `{ content, success }` in older rollouts.
  if (typeof output === "object" && typeof (output as Item).content === "string")
    return (output as Item).content as string;
  return JSON.stringify(output);
}

function reasoningText(item: Item): string | null {
  const text = [item.summary, item.content, item.rawContent]
    .map(contentText)
    .filter((t) => t !== "")
    .join("\n");
  return text === "" ? null : text;
}

function resultName(type: string): string | null {
  const base = type.replace(/_(call_)?(result|output)$/, "").replace(/_call$/, "");
  return base === "function" || base === "custom_tool" ? null : base;
}

function callId(item: Item): string {
  return str(item.callId) || str(item.call_id);
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}
