/**
 * The content of one Claude Code transcript message (`message.content`: a string, or Anthropic
 * Messages API blocks) read into what sessiondb rows hold: the searchable text, the reasoning,
 * the tool calls an assistant made and the tool results a user line carries.
 */
import type { Json } from "@sessiondb/core";

type Obj = { [key: string]: unknown };

/** A `tool_result` block: the result of the call `toolUseId`. */
export interface ToolResult {
  toolUseId: string | null;
  text: string | null;
  isError: boolean;
}

/** What a message's blocks hold, each kind apart. */
export interface Blocks {
  /** The text blocks (and an image's placeholder), joined by blank lines; null when none. */
  text: string | null;
  /** The thinking blocks, joined; a redacted block is "[redacted thinking]". */
  reasoning: string | null;
  /** `tool_use` blocks as sessiondb tool calls (`{ id, type: "function", function }`). */
  toolCalls: Json[];
  /** The `tool_use` blocks' ids and names, for pairing with their results later. */
  calls: { id: string; name: string }[];
  results: ToolResult[];
}

/** Reads `message.content`; anything that is no block (or a block type not known) is skipped:
 * it stays in the line's original. */
export function readBlocks(content: unknown): Blocks {
  const out: Blocks = { text: null, reasoning: null, toolCalls: [], calls: [], results: [] };
  if (typeof content === "string") {
    out.text = content === "" ? null : content;
    return out;
  }
  if (!Array.isArray(content)) return out;
  const texts: string[] = [];
  const thoughts: string[] = [];
  for (const raw of content) {
    if (raw === null || typeof raw !== "object") continue;
    const block = raw as Obj;
    switch (block.type) {
      case "text":
        if (typeof block.text === "string" && block.text !== "") texts.push(block.text);
        break;
      case "image":
        texts.push("[image]");
        break;
      case "thinking":
        if (typeof block.thinking === "string" && block.thinking !== "") thoughts.push(block.thinking);
        break;
      case "redacted_thinking":
        thoughts.push("[redacted thinking]");
        break;
      case "tool_use":
      case "server_tool_use": {
        const id = typeof block.id === "string" ? block.id : "";
        const name = typeof block.name === "string" ? block.name : "unknown";
        out.calls.push({ id, name });
        out.toolCalls.push({
          id,
          type: "function",
          function: { name, arguments: JSON.stringify(block.input ?? {}) },
        });
        break;
      }
      case "tool_result":
        out.results.push({
          toolUseId: typeof block.tool_use_id === "string" ? block.tool_use_id : null,
          text: resultText(block.content),
          isError: block.is_error === true,
        });
        break;
    }
  }
  if (texts.length > 0) out.text = texts.join("\n\n");
  if (thoughts.length > 0) out.reasoning = thoughts.join("\n\n");
  return out;
}

/** A tool result's content: a string, or text and image blocks. */
function resultText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const block of content as Obj[]) {
    if (block?.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block?.type === "image") parts.push("[image]");
  }
  return parts.length > 0 ? parts.join("\n\n") : null;
}
