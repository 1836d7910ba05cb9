/**
 * The serve renderers on their own: whatever a message holds, the markdown renderer, the
 * highlighter and the template emit only escaped text and the few elements they know, and links
 * only to safe schemes. (The browser test proves the same end to end in Chromium.)
 */
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { niceMax } from "../src/serve/chart.js";
import { highlightCode, highlightJsonText, highlightOutput } from "../src/serve/highlight.js";
import { hostAllowed, hostEntry, parseHost } from "../src/serve/hosts.js";
import { html } from "../src/serve/html.js";
import { isLoopback } from "../src/serve/loopback.js";
import { loadMarkdown, type Markdown } from "../src/serve/markdown.js";
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
  "s",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
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
  `[x](java&#115;cript:alert(1))`,
  `[x](java%73cript:alert(1))`,
  `[x](data:text/html,<script>alert(1)</script>)`,
  `[x](vbscript:msgbox)`,
  `[x](file:///etc/passwd)`,
  `[x](//evil.example/)`,
  `[x][r]\n\n[r]: javascript:alert(1)`,
  `<javascript:alert(1)>`,
  `![x](javascript:alert(1))`,
  `![x](data:image/png;base64,iVBORw0KGgo=)`,
  `![x" onerror="alert(1)](https://ok.example/i.png)`,
  `[x"><img src=x onerror=alert(1)>](https://ok.example/"onmouseover="alert(1))`,
  `[x](https://ok.example/ "t" onmouseover="alert(1)")`,
  `**<b onclick=alert(1)>bold</b>**`,
  `***<i>nested</i> _<u>em</u>_***`,
  "`<script>` in code",
  "```html\n<script>alert(1)</script>\n```",
  "```\n</code></pre><script>alert(1)</script>\n```",
  '```"><script>alert(1)</script>\nx\n```',
  "    <script>alert(1)</script>",
  `> <iframe src="https://evil.example"></iframe>`,
  `- <svg onload=alert(1)>`,
  `# <style>body{display:none}</style>`,
  `| <b>a</b> | b |\n|:-|-:|\n| <script>x</script> | ~~<i>y</i>~~ |`,
  `https://ok.example/"><script>alert(1)</script>`,
  `<div>\n<script>alert(1)</script>\n</div>`,
  `<!-- comment --><?php echo 1; ?><![CDATA[x]]>`,
];

let markdown: Markdown;
beforeAll(async () => {
  markdown = await loadMarkdown();
});

const REL = 'rel="noopener noreferrer nofollow"';

describe("markdown", () => {
  it.each(HOSTILE)("renders %j without foreign elements, handlers or unsafe links", (input) => {
    const out = markdown(input);
    for (const tag of tags(out)) expect(ALLOWED_TAGS.has(tag), `<${tag}> in ${out}`).toBe(true);
    // Text may say "onerror=" (escaped); a tag may not carry a handler, nor a style.
    expect(out).not.toMatch(/<[^>]*\s(on\w+|style)\s*=/i);
    for (const [, href] of out.matchAll(/href="([^"]*)"/g)) expect(href).toMatch(/^(https?:\/\/|mailto:|#)/i);
    for (const [anchor] of out.matchAll(/<a\s[^>]*>/g)) expect(anchor).toContain(REL);
    expect(out).not.toMatch(/<(script|img|iframe|svg|style|div|u|b|i)\b/i);
  });

  it("keeps the text of what it refuses to render", () => {
    expect(markdown("<script>alert(1)</script>")).toBe("<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n");
    expect(markdown("<img src=x onerror=alert(1)>")).toBe("<p>&lt;img src=x onerror=alert(1)&gt;</p>\n");
    // A link to a refused scheme is no link: its source shows as text (entities decoded, inert).
    expect(markdown("[click](javascript:void(0))")).toBe("<p>[click](javascript:void(0))</p>\n");
    expect(markdown("[x](JAVASCRIPT:alert(1))")).toBe("<p>[x](JAVASCRIPT:alert(1))</p>\n");
    expect(markdown("[x](&#106;avascript:alert(1))")).toBe("<p>[x](javascript:alert(1))</p>\n");
    expect(markdown("<javascript:alert(1)>")).toBe("<p>&lt;javascript:alert(1)&gt;</p>\n");
    expect(markdown("![x](javascript:alert(1))")).toBe("<p>![x](javascript:alert(1))</p>\n");
  });

  it("renders what agents write", () => {
    expect(markdown("# Plan\n\n- **one** and `two`\n- [docs](https://example.com/a?b=1&c=2)")).toBe(
      `<h3>Plan</h3>\n<ul>\n<li><strong>one</strong> and <code>two</code></li>\n<li><a href="https://example.com/a?b=1&amp;c=2" ${REL}>docs</a></li>\n</ul>\n`,
    );
    expect(markdown('```ts\nconst x = "<a>"; // note\n```')).toBe(
      '<pre class="code" data-lang="ts"><code><span class="t-k">const</span> x = <span class="t-s">&quot;&lt;a&gt;&quot;</span>; <span class="t-c">// note</span></code></pre>\n',
    );
    expect(markdown("```html\n<script>alert(1)</script>\n```")).toBe(
      '<pre class="code" data-lang="html"><code>&lt;script&gt;alert(<span class="t-n">1</span>)&lt;/script&gt;</code></pre>\n',
    );
    expect(markdown("line one\nline two")).toBe("<p>line one<br>\nline two</p>\n");
    expect(markdown("***both*** and **bold _italic_ bold**")).toBe(
      "<p><em><strong>both</strong></em> and <strong>bold <em>italic</em> bold</strong></p>\n",
    );
    expect(markdown("~~gone~~")).toBe("<p><s>gone</s></p>\n");
    expect(markdown("| a | b |\n|:-|-:|\n| 1 | 2 |")).toBe(
      '<table>\n<thead>\n<tr>\n<th class="align-left">a</th>\n<th class="align-right">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td class="align-left">1</td>\n<td class="align-right">2</td>\n</tr>\n</tbody>\n</table>\n',
    );
  });

  it("links autolinks and bare http(s) URLs, never a file name or a bare host", () => {
    expect(markdown("<https://example.com/a> <a@b.example>")).toBe(
      `<p><a href="https://example.com/a" ${REL}>https://example.com/a</a> <a href="mailto:a@b.example" ${REL}>a@b.example</a></p>\n`,
    );
    expect(markdown("see https://example.com/a. then setup.py, www.example.com, a@b.example")).toBe(
      `<p>see <a href="https://example.com/a" ${REL}>https://example.com/a</a>. then setup.py, www.example.com, a@b.example</p>\n`,
    );
    expect(markdown("[top](#m-3)")).toBe(`<p><a href="#m-3" ${REL}>top</a></p>\n`);
    expect(markdown("[docs][d]\n\n[d]: https://example.com/d")).toBe(
      `<p><a href="https://example.com/d" ${REL}>docs</a></p>\n`,
    );
  });

  it("loads no image: an image is a link labelled with its alt text (the text alone inside a link)", () => {
    expect(markdown("![diagram](https://example.com/d.png)")).toBe(
      `<p><a href="https://example.com/d.png" ${REL}>diagram</a></p>\n`,
    );
    expect(markdown("![](https://example.com/d.png)")).toBe(
      `<p><a href="https://example.com/d.png" ${REL}>image</a></p>\n`,
    );
    expect(markdown("[![logo](https://e.example/i.png)](https://e.example/)")).toBe(
      `<p><a href="https://e.example/" ${REL}>logo</a></p>\n`,
    );
  });

  /** `block` repeated to 1 MiB and to 256 KiB, each rendered twice, interleaved: the larger
   * rendering and the CPU-time ratio of the two (best of two each, so a loaded machine slows both
   * alike). Four times the text: linear work takes about four times as long, quadratic sixteen. */
  const growth = (block: string): { out: string; source: string; ratio: number } => {
    const text = (size: number) => block.repeat(Math.ceil(size / block.length)).slice(0, size);
    const cpu = (source: string) => {
      const start = process.cpuUsage();
      const out = markdown(source);
      const used = process.cpuUsage(start);
      return { out, ms: (used.user + used.system) / 1000 };
    };
    const big = text(1 << 20);
    const quarter = text(1 << 18);
    const times = { big: Number.POSITIVE_INFINITY, quarter: Number.POSITIVE_INFINITY };
    let out = "";
    for (let i = 0; i < 2; i++) {
      times.quarter = Math.min(times.quarter, cpu(quarter).ms);
      const run = cpu(big);
      times.big = Math.min(times.big, run.ms);
      out = run.out;
    }
    return { out, source: big, ratio: times.big / Math.max(times.quarter, 1) };
  };

  it("renders a 1 MB message whole, in time that grows with its length (not its square)", () => {
    const block = `## Step\n\nThe **plan**: _read_ \`src/app.ts\`, see https://example.com/docs.\n\n- [link](https://example.com/x?a=1&b=2)\n- <b>tag</b> & more\n\n\`\`\`ts\nconst x = "<a>"; // note\n\`\`\`\n\n> quoted *emphasis*\n\n`;
    const { out, source, ratio } = growth(block);
    expect(out.split("<h4>").length - 1).toBe(source.split("## Step").length - 1);
    expect(out).not.toMatch(/<(?!\/?(h4|p|strong|em|code|a|ul|li|pre|span|blockquote|br)\b)/);
    expect(ratio).toBeLessThan(10);
  });

  it("renders a paragraph of many images, in and out of links, in time that grows with its length", () => {
    // One paragraph (one run of inline tokens): tens of thousands of images side by side.
    const block = "![a](https://e.example/a.png) [![b](https://e.example/b.png)](https://e.example/) ";
    const { out, source, ratio } = growth(block);
    const count = (text: string, part: string) => text.split(part).length - 1;
    // Each image alone is a link of its own; one inside a link is its alt text only.
    expect(count(out, `<a href="https://e.example/a.png" ${REL}>a</a>`)).toBe(
      count(source, "![a](https://e.example/a.png)"),
    );
    expect(count(out, `<a href="https://e.example/" ${REL}>b</a>`)).toBe(
      count(source, "[![b](https://e.example/b.png)](https://e.example/)"),
    );
    expect(out).not.toContain("b.png");
    // Linear here reads 3–4; counting the links before each image (quadratic) read 9.7.
    expect(ratio).toBeLessThan(7);
  });
});

describe("highlighting and snippets", () => {
  it("escapes everything it does not mark", () => {
    for (const out of [
      highlightCode(`"</span><script>" /* <b> */ 42`),
      highlightCode(`# <img onerror=x>`, "py"),
      highlightJsonText(`{"<k>": "<v>", "n": 1}`),
      highlightOutput("Error: <script>x</script>\nok <b>"),
      markSnippet("…«<script>»alert(1) <img onerror=x>…", ["script"]).toString(),
    ]) {
      expect(out).not.toMatch(/<(?!\/?(span|mark)\b)/);
      expect(out).not.toMatch(/<[^>]*\son\w+=/);
    }
  });

  it("marks the search markers as <mark>", () => {
    expect(markSnippet("a «b» c «d&e»", queryWords("b OR d")).toString()).toBe(
      "a <mark>b</mark> c <mark>d&amp;e</mark>",
    );
  });

  it("leaves guillemets of the stored text as text: only a marked query word is a match", () => {
    const words = queryWords("uniqueword");
    // Stored `«fake» marker uniqueword and «uniqueword»`, as the store's snippet returns it.
    expect(markSnippet("«fake» marker «uniqueword» and ««uniqueword»»", words).toString()).toBe(
      "«fake» marker <mark>uniqueword</mark> and «<mark>uniqueword</mark>»",
    );
    expect(markSnippet("«see «UniqueWörd» here» »« «", words).toString()).toBe(
      "«see <mark>UniqueWörd</mark> here» »« «",
    );
    expect(markSnippet("«Café»", queryWords("cafe")).toString()).toBe("<mark>Café</mark>");
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
    expect(html`<p title="${`"x'`}">${inner}${["<", null, 1, false]}</p>`.toString()).toBe(
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
