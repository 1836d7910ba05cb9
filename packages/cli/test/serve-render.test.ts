/**
 * The serve renderers on their own: whatever a message holds, the markdown renderer, the
 * highlighter and the template emit only escaped text and the few elements they know, and links
 * only to safe schemes. (The browser test proves the same end to end in Chromium.)
 */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { niceMax } from "../src/serve/chart.js";
import { highlightCode, highlightJsonText, highlightOutput } from "../src/serve/highlight.js";
import { hostAllowed, hostEntry, parseHost } from "../src/serve/hosts.js";
import { html } from "../src/serve/html.js";
import { isLoopback } from "../src/serve/loopback.js";
import { markdown } from "../src/serve/markdown.js";
import { markSnippet, queryWords } from "../src/serve/pages/search.js";
import { streamHtml } from "../src/serve/stream.js";

/** Tags a renderer may emit; anything else in its output came from the input. */
const ALLOWED_TAGS = new Set([
  "p",
  "br",
  "a",
  "code",
  "pre",
  "span",
  "strong",
  "em",
  "del",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "blockquote",
  "hr",
  "mark",
]);

function tags(markup: string): string[] {
  return [...markup.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => (m[1] as string).toLowerCase());
}

const HOSTILE = [
  `<script>alert(1)</script>`,
  `<img src=x onerror=alert(1)>`,
  `<a href="javascript:alert(1)">x</a>`,
  `[x](javascript:alert(1))`,
  `[x]( javascript:alert(1))`,
  `[x](JAVASCRIPT:alert(1))`,
  `[x](&#106;avascript:alert(1))`,
  `[x](data:text/html,<script>alert(1)</script>)`,
  `[x](vbscript:msgbox)`,
  `![x](javascript:alert(1))`,
  `[x"><img src=x onerror=alert(1)>](https://ok.example/"onmouseover="alert(1))`,
  `**<b onclick=alert(1)>bold</b>**`,
  "`<script>` in code",
  "```html\n<script>alert(1)</script>\n```",
  "```\n</code></pre><script>alert(1)</script>\n```",
  `> <iframe src="https://evil.example"></iframe>`,
  `- <svg onload=alert(1)>`,
  `# <style>body{display:none}</style>`,
  `https://ok.example/"><script>alert(1)</script>`,
];

describe("markdown", () => {
  it.each(HOSTILE)("renders %j without foreign elements, handlers or unsafe links", (input) => {
    const out = markdown(input);
    for (const tag of tags(out)) expect(ALLOWED_TAGS.has(tag), `<${tag}> in ${out}`).toBe(true);
    // Text may say "onerror=" (escaped); a tag may not carry a handler.
    expect(out).not.toMatch(/<[^>]*\son\w+\s*=/i);
    for (const [, href] of out.matchAll(/href="([^"]*)"/g)) expect(href).toMatch(/^(https?:\/\/|mailto:|#)/i);
    expect(out).not.toMatch(/<(script|img|iframe|svg|style)/i);
  });

  it("keeps the text of what it refuses to render", () => {
    expect(markdown("<script>alert(1)</script>")).toBe("<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
    expect(markdown("[click](javascript:void(0))")).toBe(
      '<p>click <span class="unlinked">(javascript:void(0)</span>)</p>',
    );
  });

  it("renders what agents write", () => {
    expect(markdown("# Plan\n\n- **one** and `two`\n- [docs](https://example.com/a?b=1&c=2)")).toBe(
      '<h3>Plan</h3>\n<ul><li><strong>one</strong> and <code>two</code></li><li><a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">docs</a></li></ul>',
    );
    expect(markdown('```ts\nconst x = "<a>"; // note\n```')).toBe(
      '<pre class="code" data-lang="ts"><code><span class="t-k">const</span> x = <span class="t-s">&quot;&lt;a&gt;&quot;</span>; <span class="t-c">// note</span></code></pre>',
    );
    expect(markdown("line one\nline two")).toBe("<p>line one<br>line two</p>");
  });
});

describe("highlighting and snippets", () => {
  it("escapes everything it does not mark", () => {
    for (const out of [
      highlightCode(`"</span><script>" /* <b> */ 42`),
      highlightCode(`# <img onerror=x>`, "py"),
      highlightJsonText(`{"<k>": "<v>", "n": 1}`),
      highlightOutput("Error: <script>x</script>\nok <b>"),
      markSnippet("…«<script>»alert(1) <img onerror=x>…", ["script"]).value,
    ]) {
      expect(out).not.toMatch(/<(?!\/?(span|mark)\b)/);
      expect(out).not.toMatch(/<[^>]*\son\w+=/);
    }
  });

  it("marks the search markers as <mark>", () => {
    expect(markSnippet("a «b» c «d&e»", queryWords("b OR d")).value).toBe(
      "a <mark>b</mark> c <mark>d&amp;e</mark>",
    );
  });

  it("leaves guillemets of the stored text as text: only a marked query word is a match", () => {
    const words = queryWords("uniqueword");
    // Stored `«fake» marker uniqueword and «uniqueword»`, as the store's snippet returns it.
    expect(markSnippet("«fake» marker «uniqueword» and ««uniqueword»»", words).value).toBe(
      "«fake» marker <mark>uniqueword</mark> and «<mark>uniqueword</mark>»",
    );
    expect(markSnippet("«see «UniqueWörd» here» »« «", words).value).toBe(
      "«see <mark>UniqueWörd</mark> here» »« «",
    );
    expect(markSnippet("«Café»", queryWords("cafe")).value).toBe("<mark>Café</mark>");
    expect(queryWords('"Exact phrase" AND error-prone NOT x')).toEqual([
      "exact",
      "phrase",
      "error",
      "prone",
      "x",
    ]);
  });

  it("the template escapes values and nests its own output", () => {
    const inner = html`<i>${"<b>"}</i>`;
    expect(html`<p title="${`"x'`}">${inner}${["<", null, 1, false]}</p>`.value).toBe(
      '<p title="&quot;x&#39;"><i>&lt;b&gt;</i>&lt;1</p>',
    );
  });
});

describe("host rules", () => {
  it("parses Host headers and refuses malformed ones", () => {
    expect(parseHost("127.0.0.1:8080")).toEqual(["127.0.0.1", 8080]);
    expect(parseHost("LOCALHOST")).toEqual(["localhost", undefined]);
    expect(parseHost("[::1]:9")).toEqual(["[::1]", 9]);
    for (const bad of [undefined, "", "a b", "x:y", "evil.example:80/path", "user@host:1"])
      expect(parseHost(bad)).toBeUndefined();
  });

  it("reads --allow-host values and matches names on the listening port, name:port on that port", () => {
    expect(["Name.Example", "name.example:8443", "::1", "[::1]:9", "10.0.0.1:80"].map(hostEntry)).toEqual([
      "name.example",
      "name.example:8443",
      "[::1]",
      "[::1]:9",
      "10.0.0.1:80",
    ]);
    for (const bad of ["", "a b", "x:0", "x:65536", "x:", "http://x", "x/y", "[::1", "user@x"])
      expect(hostEntry(bad), bad).toBeUndefined();
    const entries = new Set(["plain", "proxy:8443", "tls:443", "web:80"]);
    const allowed = (host: string) => hostAllowed(entries, 7345, parseHost(host) as [string, number]);
    expect(["plain:7345", "proxy:8443", "tls", "tls:443", "web", "web:80"].filter(allowed)).toHaveLength(6);
    expect(
      ["plain", "plain:80", "proxy:7345", "proxy", "tls:7345", "web:443", "other:7345"].some(allowed),
    ).toBe(false);
  });

  it("knows loopback addresses", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"])
      expect(isLoopback(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.2", "example.com", "127.0.0.1.example.com"])
      expect(isLoopback(host)).toBe(false);
  });

  it("rounds chart axes up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect([0, 0.7, 1, 3, 24, 251, 9_999].map(niceMax)).toEqual([1, 1, 1, 5, 25, 500, 10_000]);
  });
});

describe("streamed pages", () => {
  it("send parts as they come; a failure after the first part ends the page with a notice and is logged", async () => {
    const logged: unknown[] = [];
    const app = new Hono();
    async function* parts(fail: boolean): AsyncGenerator<string> {
      yield "<html><body><main><p>head</p>";
      if (fail) throw new Error("SQLITE_CORRUPT reading /secret/path/store.db");
      yield "<p>rest</p></main></body></html>";
    }
    app.get("/:mode", (c) => streamHtml(c, parts(c.req.param("mode") === "fail"), (e) => logged.push(e)));
    const ok = await app.request("/ok");
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("<html><body><main><p>head</p><p>rest</p></main></body></html>");
    const failed = await app.request("/fail");
    expect(failed.status).toBe(200);
    const text = await failed.text();
    expect(text.startsWith("<html><body><main><p>head</p>")).toBe(true);
    expect(text).toContain("The rest of this page could not be read");
    expect(text).not.toContain("/secret/path");
    expect(text).not.toContain("SQLITE_CORRUPT");
    expect(text.endsWith("</html>")).toBe(true);
    expect(logged).toHaveLength(1);
  });
});
