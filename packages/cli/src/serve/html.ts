/**
 * Markup is built by Hono's `html` tagged template, which escapes every interpolated value
 * unless it is already escaped markup (its own output, or `raw`). Content from the store is never
 * concatenated into markup any other way, so a message holding `<script>` can only come out as text.
 */
import { html as honoHtml, raw } from "hono/html";
import { escapeToBuffer, type HtmlEscapedString } from "hono/utils/html";

/** Markup that is safe to insert as is. */
export type Html = HtmlEscapedString;

/** Values a template accepts: markup as is, lists flattened, null/undefined/booleans dropped, the rest escaped. */
export type Part = Html | string | number | boolean | null | undefined | readonly Part[];

/**
 * The one way markup is built: `html\`<p>${text}</p>\`` escapes `text`. Hono's template returns a
 * promise only when a value is one; `Part` admits none, so the result is always markup.
 */
export const html = honoHtml as (strings: TemplateStringsArray, ...parts: Part[]) => Html;

/** Markup produced by code that escaped every piece of its input itself (markdown, highlighter). */
export { raw };

/** Text escaped for an element body or a quoted attribute value, as the template escapes it. */
export function escapeHtml(text: string): string {
  const buffer: [string] = [""];
  escapeToBuffer(text, buffer);
  return buffer[0];
}
