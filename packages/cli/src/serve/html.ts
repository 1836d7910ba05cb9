/**
 * HTML built by one tagged template that escapes every interpolated value unless it is already
 * `Html`. Content from the store is never concatenated into markup any other way, so a message
 * holding `<script>` can only ever come out as text.
 */

/** Markup that is safe to insert as is (built by `html`, or by a renderer that escaped its input). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escape text for an element body or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] as string);
}

/** Values a template accepts: Html as is, lists flattened, null/undefined/false dropped, the rest escaped. */
export type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return "";
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join("");
  return escapeHtml(String(part));
}

/** The one way markup is built: `html\`<p>${text}</p>\`` escapes `text`. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? "";
  for (let i = 0; i < parts.length; i++) out += render(parts[i] as Part) + (strings[i + 1] ?? "");
  return new Html(out);
}

/** Markup produced by code that escaped every piece of its input itself (markdown, highlighter). */
export function trusted(markup: string): Html {
  return new Html(markup);
}
