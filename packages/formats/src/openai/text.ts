/**
 * The searchable text of OpenAI content: a string, or the content parts of a Responses / Agents
 * message, tool output or reasoning item. Only text a person would search for goes in; an image,
 * file or audio part leaves a short marker, so a transcript still says something was there (the
 * part itself stays in the message's original).
 */

type Part = { [key: string]: unknown };

/** Part types whose `text` is the part's text. */
const TEXT_PARTS = new Set(["input_text", "output_text", "text", "summary_text", "reasoning_text"]);

/** The text of one content value; parts are joined by newlines; "" when it holds no text. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map(partText)
      .filter((t) => t !== "")
      .join("\n");
  if (content !== null && typeof content === "object") return partText(content);
  return "";
}

function partText(part: unknown): string {
  if (typeof part === "string") return part;
  if (part === null || typeof part !== "object") return "";
  const p = part as Part;
  const type = typeof p.type === "string" ? p.type : "";
  if (TEXT_PARTS.has(type) || (type === "" && typeof p.text === "string")) return str(p.text);
  switch (type) {
    case "refusal":
      return str(p.refusal);
    case "audio":
      return typeof p.transcript === "string" ? p.transcript : "[audio]";
    case "input_image":
    case "image":
    case "computer_screenshot":
      return "[image]";
    case "input_file":
    case "file":
      return typeof p.filename === "string" ? `[file: ${p.filename}]` : "[file]";
    default:
      return "";
  }
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}
