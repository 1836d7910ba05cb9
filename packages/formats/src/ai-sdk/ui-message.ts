/**
 * The AI SDK's UIMessage (`ai` 7: `{ id, role, metadata?, parts }`) as far as the mapping reads
 * it. Structural, so this package needs no dependency on `ai`: a binding passes the SDK's own
 * values, and every field the mapping does not read is still kept in the original.
 */
import type { Json } from "@sessiondb/core";

/** The `original.format` of a row that holds a UIMessage. */
export const AI_SDK_FORMAT = "ai-sdk";

/** The roles a UIMessage can have. */
export const UI_ROLES = ["system", "user", "assistant"] as const;

/** A UIMessage as plain JSON (what is stored and given back). */
export interface UIMessageJson {
  id: string;
  role: (typeof UI_ROLES)[number];
  metadata?: Json;
  parts: UIPartJson[];
}

/** A part: `type` says which; the rest depends on it. */
export interface UIPartJson {
  type: string;
  [key: string]: Json | undefined;
}

/** The states of a tool part (static `tool-<name>` or `dynamic-tool`) in `ai` 7. */
export type ToolState =
  | "input-streaming"
  | "input-available"
  | "approval-requested"
  | "approval-responded"
  | "output-available"
  | "output-error"
  | "output-denied";

/** Part types the mapping knows besides tools (`tool-*`, `dynamic-tool`) and data (`data-*`). */
export const KNOWN_PART_TYPES: ReadonlySet<string> = new Set([
  "text",
  "reasoning",
  "file",
  "reasoning-file",
  "source-url",
  "source-document",
  "step-start",
  "custom",
  "steering-message",
]);

/** The tool's name, when `part` is a tool part: `tool-<name>` or a `dynamic-tool`'s toolName. */
export function toolNameOf(part: UIPartJson): string | undefined {
  if (part.type === "dynamic-tool") return typeof part.toolName === "string" ? part.toolName : "dynamic-tool";
  return part.type.startsWith("tool-") ? part.type.slice("tool-".length) : undefined;
}
