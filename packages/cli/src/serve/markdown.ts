/**
 * Markdown for message content, rendered by markdown-it (CommonMark plus tables, strikethrough
 * and bare-URL links) set up to be safe: raw HTML in a message comes out as text (`html: false`),
 * a link gets an href only for http(s), mailto and in-page anchors — anything else stays text —
 * and images are never loaded (no request leaves the page): each becomes a link labelled with its
 * alt text. markdown-it is loaded on first use: only the transcript page renders markdown.
 */
import type { MarkdownIt, RendererRule, Token } from "markdown-it";
import { highlightCode } from "./highlight.js";
import { escapeHtml } from "./html.js";

/** Schemes a link may point to; anything else (javascript:, data:, vbscript:, file:, relative) is text. */
const SAFE_HREF = /^(https?:\/\/|mailto:|#)/i;
const REL = "noopener noreferrer nofollow";

/** Render markdown to safe HTML. */
export type Markdown = (source: string) => string;

/** Marks each image inside a link (an anchor may not hold another), in one pass over each line's
 * inline tokens: asking per image, by counting the links before it, made a message of many images
 * quadratic. */
function markImagesInLinks(tokens: readonly Token[]): void {
  for (const block of tokens) {
    let depth = 0;
    for (const token of block.children ?? []) {
      if (token.type === "link_open") depth++;
      else if (token.type === "link_close") depth--;
      else if (token.type === "image" && depth > 0) token.meta = { ...token.meta, insideLink: true };
    }
  }
}

const image: RendererRule = (tokens, idx, options, env, self) => {
  const token = tokens[idx] as Token;
  const label = escapeHtml(self.renderInlineAsText(token.children ?? [], options, env) || "image");
  if (token.meta?.insideLink === true) return label;
  return `<a href="${escapeHtml(String(token.attrGet("src") ?? ""))}" rel="${REL}">${label}</a>`;
};

function configure(md: MarkdownIt): Markdown {
  // Bare URLs are linked only with their scheme: `setup.py` is a file name, not a host in Paraguay.
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false });
  // markdown-it's own check (which also refuses javascript:, vbscript:, file: and most data:),
  // then our list on top of it.
  const builtIn = md.validateLink.bind(md);
  md.validateLink = (url) => builtIn(url) && SAFE_HREF.test(url.trim());
  // Content headings sit below the page's own: # becomes h3.
  md.core.ruler.push("sessiondb_headings", (state) => {
    for (const token of state.tokens)
      if (token.type === "heading_open" || token.type === "heading_close")
        token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + 2)}`;
  });
  md.core.ruler.push("sessiondb_images_in_links", (state) => markImagesInLinks(state.tokens));
  const rules = md.renderer.rules;
  rules.link_open = (tokens, idx, options, _env, self) => {
    (tokens[idx] as Token).attrSet("rel", REL);
    return self.renderToken(tokens, idx, options);
  };
  rules.image = image;
  rules.fence = (tokens, idx) => {
    const token = tokens[idx] as Token;
    const lang = md.utils.unescapeAll(token.info).trim().split(/\s+/)[0] ?? "";
    const code = highlightCode(token.content.replace(/\n$/, ""), lang);
    return `<pre class="code"${lang ? ` data-lang="${escapeHtml(lang)}"` : ""}><code>${code}</code></pre>\n`;
  };
  // Table alignment as a class: the page's Content-Security-Policy refuses inline styles.
  for (const cell of ["th_open", "td_open"] as const) {
    rules[cell] = (tokens, idx, options, _env, self) => {
      const token = tokens[idx] as Token;
      const align = /text-align:(\w+)/.exec(String(token.attrGet("style") ?? ""))?.[1];
      if (token.attrs) token.attrs = token.attrs.filter(([name]) => name !== "style");
      if (align) token.attrSet("class", `align-${align}`);
      return self.renderToken(tokens, idx, options);
    };
  }
  return (source) => md.render(source);
}

let loading: Promise<Markdown> | undefined;

/** The renderer, loading markdown-it the first time. */
export function loadMarkdown(): Promise<Markdown> {
  loading ??= import("markdown-it").then(({ default: MarkdownIt }) =>
    // Chat text keeps its line breaks (agents and users rarely rely on markdown's soft wraps).
    configure(new MarkdownIt("default", { html: false, linkify: true, breaks: true, typographer: false })),
  );
  return loading;
}
