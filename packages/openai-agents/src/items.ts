/**
 * Agents SDK items in and out of sessiondb rows. In: each item checked (what the SDK could
 * never produce is refused, naming its index; a type the SDK does not know yet is taken), then
 * mapped by @sessiondb/formats' OpenAI rules, one row per item with the item as its original.
 * Out: the original, as given; a row some other writer stored without one becomes the nearest
 * item (a message, a function call or its result), so a session started elsewhere can go on here.
 */
import { type AgentInputItem, protocol } from "@openai/agents-core";
import { InvalidInputError, type Json, type Message, type MessageInput } from "@sessiondb/core";
import { OPENAI_AGENTS_FORMAT, OpenAIItems } from "@sessiondb/formats";

/** The item types of the SDK's own schema, each with its schema: these must parse by it. */
const SCHEMAS: { [type: string]: { safeParse(value: unknown): SchemaResult } } = {
  message: protocol.MessageItem,
  function_call: protocol.FunctionCallItem,
  function_call_result: protocol.FunctionCallResultItem,
  hosted_tool_call: protocol.HostedToolCallItem,
  computer_call: protocol.ComputerUseCallItem,
  computer_call_result: protocol.ComputerCallResultItem,
  shell_call: protocol.ShellCallItem,
  shell_call_output: protocol.ShellCallResultItem,
  apply_patch_call: protocol.ApplyPatchCallItem,
  apply_patch_call_output: protocol.ApplyPatchCallResultItem,
  tool_search_call: protocol.ToolSearchCallItem,
  tool_search_output: protocol.ToolSearchOutputItem,
  program: protocol.ProgramCallItem,
  program_output: protocol.ProgramCallResultItem,
  reasoning: protocol.ReasoningItem,
  compaction: protocol.CompactionItem,
  unknown: protocol.UnknownItem,
};

type SchemaResult = { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };

/** The rows for `items` (field names in errors: `items[i]`); nothing is written here. */
export function itemRows(items: unknown, field = "items"): MessageInput[] {
  if (!Array.isArray(items)) throw new InvalidInputError(field, "must be an array of AgentInputItems");
  const mapper = new OpenAIItems();
  return items.map((item, i) => {
    checkItem(item, `${field}[${i}]`);
    const [row] = mapper.map(item, {
      // A Session is a list: the same item may be in it twice (given again after a pop), so the
      // rows carry no externalId that would make the second one vanish.
      externalId: null,
      original: { format: OPENAI_AGENTS_FORMAT, value: item as Json },
    }).messages as [MessageInput];
    // Every item of the history is part of the conversation here, compactions and unknown
    // types too: inactive marks what popItem and clearSession took out.
    return { ...row, active: true };
  });
}

/** The item a stored row stands for. */
export function rowItems(row: Message): AgentInputItem[] {
  const original = row.original;
  if (original?.format === OPENAI_AGENTS_FORMAT) return [original.value as unknown as AgentInputItem];
  const text =
    typeof row.content === "string" ? row.content : row.content === null ? "" : JSON.stringify(row.content);
  if (row.role === "tool")
    return [
      {
        type: "function_call_result",
        callId: row.toolCallId ?? "",
        name: row.toolName ?? "",
        status: "completed",
        output: text,
      },
    ];
  if (row.role === "user") return [{ role: "user", content: text }];
  if (row.role === "system" || row.role === "developer") return [{ role: "system", content: text }];
  const items: AgentInputItem[] = [];
  if (text !== "")
    items.push({ role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
  for (const call of row.toolCalls ?? []) {
    const c = call as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    const args = c.function?.arguments;
    items.push({
      type: "function_call",
      callId: typeof c.id === "string" ? c.id : "",
      name: typeof c.function?.name === "string" ? c.function.name : "",
      arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
    });
  }
  return items;
}

function checkItem(item: unknown, field: string): void {
  if (item === null || typeof item !== "object" || Array.isArray(item))
    throw new InvalidInputError(
      field,
      `must be an AgentInputItem object, not ${item === null ? "null" : Array.isArray(item) ? "an array" : typeof item}`,
    );
  checkJson(item, field, new Set());
  const { type, role } = item as { type?: unknown; role?: unknown };
  if (type === undefined && role === undefined)
    throw new InvalidInputError(field, "has neither a type nor a role");
  if (type !== undefined && typeof type !== "string")
    throw new InvalidInputError(`${field}.type`, "must be a string");
  const schema = SCHEMAS[(type as string | undefined) ?? "message"];
  if (schema !== undefined && Object.hasOwn(SCHEMAS, (type as string | undefined) ?? "message")) {
    const parsed = schema.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error?.issues[0];
      const at = issue?.path.length ? `${field}.${issue.path.map(String).join(".")}` : field;
      throw new InvalidInputError(
        at,
        `is no ${type ?? "message"} item the Agents SDK reads (${issue?.message ?? "schema"})`,
      );
    }
  }
}

/** Plain JSON only: what is stored is what comes back. */
function checkJson(value: unknown, field: string, path: Set<object>): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new InvalidInputError(field, `holds ${value}, which JSON cannot keep`);
    return;
  }
  if (typeof value !== "object")
    throw new InvalidInputError(field, `holds a ${typeof value}, which JSON cannot keep`);
  if (path.has(value)) throw new InvalidInputError(field, "refers to itself (a cycle)");
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null)
    throw new InvalidInputError(
      field,
      `holds a ${proto?.constructor?.name ?? "non-plain"} object, which JSON cannot keep`,
    );
  path.add(value);
  for (const [key, v] of Object.entries(value))
    if (v !== undefined || Array.isArray(value)) checkJson(v, `${field}.${key}`, path);
  path.delete(value);
}
