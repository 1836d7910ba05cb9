/**
 * A tool call as one line of text, for `sessions show` and the export formats. Its own module so
 * that `sessions show` loads neither the export formats nor the HTML template they use.
 */

/** A tool call as `name(arguments)`, or its JSON when it has no function name. */
export function toolCallText(call: unknown): string {
  const fn = (call as { function?: { name?: unknown; arguments?: unknown } })?.function;
  return fn && typeof fn.name === "string"
    ? `${fn.name}(${String(fn.arguments ?? "")})`
    : JSON.stringify(call);
}
