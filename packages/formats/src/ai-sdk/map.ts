/**
 * One UIMessage → sessiondb rows: the message row (its role, the text parts as searchable text,
 * reasoning, the tool parts as tool calls, the usage its metadata reports; the whole UIMessage as
 * its original) and one `tool` row per tool part that has an outcome (output, error, denial),
 * carrying the call's id and tool name so readers pair it with the call.
 */
import { InvalidInputError, type Json, type MessageInput, type UsageInput } from "@sessiondb/core";
import type { ItemMapper, MappedItem } from "../mapped.js";
import { plainJson } from "./json.js";
import {
  AI_SDK_FORMAT,
  KNOWN_PART_TYPES,
  toolNameOf,
  UI_ROLES,
  type UIMessageJson,
  type UIPartJson,
} from "./ui-message.js";

/** The store's limit for an externalId. */
const MAX_EXTERNAL_ID_CHARS = 500;

/** The externalId of the tool row for `toolCallId` in message `messageId`: stable across saves,
 * unique in the chat (a call id is unique in its message). */
export function toolRowKey(messageId: string, toolCallId: string): string {
  return `${messageId}/tool/${toolCallId}`;
}

/**
 * Checks `value` as a UIMessage and maps it. `field` names it in errors (`messages[3]`): wrong
 * types, a cycle or an oversized message are an InvalidInputError at that field. Part types this
 * mapping does not know are kept (in the original) and named in `unknown`, never refused.
 */
export function mapUIMessage(value: unknown, field: string): MappedItem {
  const message = checkMessage(plainJson(value, field), field);
  const texts: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: Json[] = [];
  const toolRows: MessageInput[] = [];
  const unknown = new Set<string>();
  message.parts.forEach((part, j) => {
    const at = `${field}.parts[${j}]`;
    if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
    else if (part.type === "reasoning" && typeof part.text === "string") reasoning.push(part.text);
    else if (part.type === "steering-message" && Array.isArray(part.parts)) {
      for (const inner of part.parts) if (isTextPart(inner)) texts.push(inner.text);
    }
    const toolName = toolNameOf(part);
    if (toolName !== undefined) {
      const call = toolCall(part, toolName, at);
      toolCalls.push(call.json);
      const result = toolResult(part, toolName, call.id, message.id, at);
      if (result) toolRows.push(result);
    } else if (!KNOWN_PART_TYPES.has(part.type) && !part.type.startsWith("data-")) unknown.add(part.type);
  });
  const row: MessageInput = {
    role: message.role,
    content: texts.length > 0 ? texts.join("\n\n") : null,
    reasoning: reasoning.length > 0 ? reasoning.join("\n\n") : null,
    toolCalls: toolCalls.length > 0 ? toolCalls : null,
    externalId: message.id,
    original: { format: AI_SDK_FORMAT, value: message as unknown as Json },
    usage: usageOf(message.metadata),
  };
  const mapped: MappedItem = { messages: [row, ...toolRows] };
  if (unknown.size > 0) mapped.unknown = [...unknown].join(",");
  return mapped;
}

/** A mapper over a chat's messages in order: `position` is the message's index. */
export function uiMessageMapper(): ItemMapper<unknown> {
  return { map: (item, position) => mapUIMessage(item, `messages[${position}]`) };
}

function checkMessage(value: Json, field: string): UIMessageJson {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidInputError(field, "expected a UIMessage object ({ id, role, parts })");
  }
  const { id, role, parts } = value;
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_EXTERNAL_ID_CHARS) {
    throw new InvalidInputError(
      `${field}.id`,
      `expected a non-empty string of at most ${MAX_EXTERNAL_ID_CHARS} characters`,
    );
  }
  if (typeof role !== "string" || !(UI_ROLES as readonly string[]).includes(role)) {
    throw new InvalidInputError(`${field}.role`, `expected one of ${UI_ROLES.join(", ")}`);
  }
  if (!Array.isArray(parts)) throw new InvalidInputError(`${field}.parts`, "expected an array of parts");
  parts.forEach((part, j) => {
    if (typeof part !== "object" || part === null || Array.isArray(part) || typeof part.type !== "string") {
      throw new InvalidInputError(`${field}.parts[${j}]`, "expected a part object with a string type");
    }
  });
  return value as unknown as UIMessageJson;
}

function isTextPart(value: Json): value is { type: "text"; text: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    value.type === "text" &&
    typeof value.text === "string"
  );
}

/** A tool part as a call in the OpenAI shape every sessiondb reader knows. */
function toolCall(part: UIPartJson, name: string, at: string): { id: string; json: Json } {
  const id = part.toolCallId;
  if (typeof id !== "string" || id.length === 0) {
    throw new InvalidInputError(`${at}.toolCallId`, "expected a non-empty string");
  }
  // While input streams in, `input` is partial and `rawInput` the text so far.
  const input = part.input ?? (typeof part.rawInput === "string" ? part.rawInput : null);
  const args = typeof input === "string" ? input : JSON.stringify(input);
  return { id, json: { id, type: "function", function: { name, arguments: args } } };
}

/** The tool row for a part that has an outcome, or undefined while the call waits for one. */
function toolResult(
  part: UIPartJson,
  toolName: string,
  toolCallId: string,
  messageId: string,
  at: string,
): MessageInput | undefined {
  const key = toolRowKey(messageId, toolCallId);
  if (key.length > MAX_EXTERNAL_ID_CHARS) {
    throw new InvalidInputError(
      `${at}.toolCallId`,
      `the message id and call id are longer than ${MAX_EXTERNAL_ID_CHARS - 6} characters together`,
    );
  }
  const row = { role: "tool", toolName, toolCallId, externalId: key } as const;
  if (part.state === "output-available") {
    const output = part.output ?? null;
    return { ...row, content: typeof output === "string" ? output : JSON.stringify(output) };
  }
  if (part.state === "output-error") {
    return {
      ...row,
      content: typeof part.errorText === "string" ? part.errorText : "error",
      metadata: { isError: true },
    };
  }
  if (part.state === "output-denied") {
    const approval = part.approval;
    const reason =
      typeof approval === "object" && approval !== null && !Array.isArray(approval)
        ? approval.reason
        : undefined;
    return {
      ...row,
      content: typeof reason === "string" ? `denied: ${reason}` : "denied",
      metadata: { denied: true },
    };
  }
  return undefined;
}

/** Usage the app put in the message's metadata: `{ model, provider?, usage }`, with `usage` the
 * SDK's LanguageModelUsage (e.g. the finish part's `totalUsage`). Nothing without a model name. */
function usageOf(metadata: Json | undefined): UsageInput | null {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return null;
  const { model, provider, usage } = metadata;
  if (
    typeof model !== "string" ||
    model === "" ||
    typeof usage !== "object" ||
    usage === null ||
    Array.isArray(usage)
  ) {
    return null;
  }
  const count = (value: Json | undefined) =>
    typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
  const details = (value: Json | undefined) =>
    typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  const input = details(usage.inputTokenDetails);
  const output = details(usage.outputTokenDetails);
  const cacheRead = count(input.cacheReadTokens) ?? count(usage.cachedInputTokens);
  const cacheWrite = count(input.cacheWriteTokens);
  const total = count(usage.inputTokens);
  // sessiondb counts input without the cached part; the SDK's inputTokens includes it.
  const uncached =
    count(input.noCacheTokens) ??
    (total === undefined ? undefined : Math.max(0, total - (cacheRead ?? 0) - (cacheWrite ?? 0)));
  const result: UsageInput = { model };
  if (typeof provider === "string" && provider !== "") result.provider = provider;
  const fields: [keyof UsageInput, number | undefined][] = [
    ["inputTokens", uncached],
    ["outputTokens", count(usage.outputTokens)],
    ["cacheReadTokens", cacheRead],
    ["cacheWriteTokens", cacheWrite],
    ["reasoningTokens", count(output.reasoningTokens) ?? count(usage.reasoningTokens)],
  ];
  for (const [name, value] of fields)
    if (value !== undefined) (result as unknown as Record<string, number>)[name] = value;
  return result;
}
