/**
 * `export --redact PATTERN`: secrets a user names are replaced before anything is written.
 * PATTERN is literal text, or /a regular expression/ with optional flags. Every string in a
 * session or message is rewritten (content, content parts, tool-call arguments, reasoning,
 * titles, metadata) except the identifiers that tie the export together.
 */
import { UsageError } from "./exit.js";

export const REDACTED = "[REDACTED]";

/** Fields that identify rather than say something: rewriting them would break the export. */
const IDENTIFIERS = new Set([
  "id",
  "sessionId",
  "session_id",
  "parentSessionId",
  "parent_session_id",
  "toolCallId",
  "tool_call_id",
  "role",
  "type",
]);

function toRegExp(pattern: string): RegExp {
  const literal = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (!literal) {
    if (pattern === "") throw new UsageError("--redact needs a non-empty pattern");
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "g");
  }
  const [, body, flags = ""] = literal;
  try {
    const re = new RegExp(body as string, flags.includes("g") ? flags : `${flags}g`);
    if (re.test(""))
      throw new UsageError(`--redact ${pattern} matches empty text; give a pattern that matches the secret`);
    return re;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `--redact ${pattern} is not a valid regular expression: ${(error as Error).message}`,
    );
  }
}

/** A function that redacts every matching string inside a value (a copy; the value is kept). */
export function redactor(patterns: readonly string[]): <T>(value: T) => T {
  const expressions = patterns.map(toRegExp);
  if (expressions.length === 0) return (value) => value;
  const text = (s: string) => expressions.reduce((out, re) => out.replace(re, REDACTED), s);
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === "string") return key !== undefined && IDENTIFIERS.has(key) ? value : text(value);
    if (Array.isArray(value)) return value.map((item) => walk(item));
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    return value;
  };
  return <T>(value: T) => walk(value) as T;
}
