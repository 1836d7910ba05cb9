/**
 * Markdown for message content, rendered safely: the renderer never passes a character of input
 * through without escaping it, emits only the elements it knows (no raw HTML blocks, no images),
 * and gives links an href only for http(s), mailto and in-page anchors — `javascript:` and every
 * other scheme come out as plain text. Covers what agents write: paragraphs, headings, lists,
 * quotes, rules, fenced code (highlighted), inline code, emphasis and links.
 */
import { highlightCode } from "./highlight.js";
import { escapeHtml } from "./html.js";

/** Schemes a link may point to; anything else (javascript:, data:, vbscript:, file:) is not linked. */
const SAFE_HREF = /^(https?:\/\/|mailto:|#)/i;

function link(text: string, url: string): string {
  const href = url.trim();
  if (!SAFE_HREF.test(href)) return `${text} <span class="unlinked">(${escapeHtml(href)})</span>`;
  return `<a href="${escapeHtml(href)}" rel="noopener noreferrer nofollow">${text}</a>`;
}

/** Emphasis on already-escaped text. */
function emphasis(escaped: string): string {
  return escaped
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
    .replace(/__(?=\S)([\s\S]*?\S)__/g, "<strong>$1</strong>")
    .replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?!\w)/g, "$1<em>$2</em>")
    .replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, "$1<em>$2</em>")
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "<del>$1</del>");
}

const INLINE =
  /(`+)([\s\S]*?[^`])\1(?!`)|!?\[([^\]\n]*)\]\(([^)\s]*)\)|(https?:\/\/[^\s<>()"']+[^\s<>()"'.,;:!?])/g;

/** Inline markup of one paragraph's text (code spans, links, bare URLs, emphasis). */
export function inline(text: string): string {
  let out = "";
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    out += emphasis(escapeHtml(text.slice(last, at)));
    last = at + m[0].length;
    const [whole, , code, label, url, bare] = m;
    if (code !== undefined) out += `<code>${escapeHtml(code)}</code>`;
    // Images are never loaded (no remote requests from a transcript): they become links.
    else if (label !== undefined && url !== undefined)
      out += link(emphasis(escapeHtml(label || (whole.startsWith("!") ? "image" : url))), url);
    else if (bare) out += link(escapeHtml(bare), bare);
  }
  return out + emphasis(escapeHtml(text.slice(last)));
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const BULLET = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;

/** Render markdown to safe HTML. */
export function markdown(source: string): string {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] as string;
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] as string).trimStart().startsWith(marker))
        body.push(lines[i++] as string);
      i++; // the closing fence (or the end)
      const lang = fence[2] ?? "";
      out.push(
        `<pre class="code"${lang ? ` data-lang="${escapeHtml(lang)}"` : ""}><code>${highlightCode(body.join("\n"), lang)}</code></pre>`,
      );
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      // Content headings sit below the page's own: # becomes h3.
      const level = Math.min(6, (heading[1] as string).length + 2);
      out.push(`<h${level}>${inline(heading[2] ?? "")}</h${level}>`);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push("<hr>");
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] as string))
        body.push((QUOTE.exec(lines[i++] as string) as RegExpExecArray)[1] ?? "");
      out.push(`<blockquote>${markdown(body.join("\n"))}</blockquote>`);
      continue;
    }
    if (BULLET.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: string[] = [];
      while (i < lines.length) {
        const current = lines[i] as string;
        const item = BULLET.exec(current);
        if (item) items.push(item[3] ?? "");
        else if (current.trim() !== "" && /^\s+/.test(current) && items.length)
          items[items.length - 1] += `\n${current.trim()}`;
        else break;
        i++;
      }
      const tag = ordered ? "ol" : "ul";
      out.push(
        `<${tag}>${items.map((item) => `<li>${inline(item).replace(/\n/g, "<br>")}</li>`).join("")}</${tag}>`,
      );
      continue;
    }
    const para: string[] = [];
    while (i < lines.length) {
      const current = lines[i] as string;
      if (
        current.trim() === "" ||
        FENCE.test(current) ||
        HEADING.test(current) ||
        QUOTE.test(current) ||
        BULLET.test(current) ||
        RULE.test(current)
      )
        break;
      para.push(current);
      i++;
    }
    // Chat text keeps its line breaks (agents and users rarely rely on markdown's soft wraps).
    out.push(`<p>${inline(para.join("\n")).replace(/\n/g, "<br>")}</p>`);
  }
  return out.join("\n");
}
