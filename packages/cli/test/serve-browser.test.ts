/**
 * `sessiondb serve` in a real browser: headless Chromium shipped inside @sparticuz/chromium,
 * driven by playwright-core, against the built CLI serving a corpus store (Node). Screenshots of
 * every page go to test-output/serve/.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { Message } from "@sessiondb/core";
import chromiumPkg from "@sparticuz/chromium";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusStore, tempDir, withStore } from "./helpers.js";
import { type Served, startServe } from "./serve-process.js";

const OUTPUT = fileURLToPath(new URL("../test-output/serve/", import.meta.url));
const NODE = [process.env.SESSIONDB_HOST_NODE || process.execPath];
const QUIET_ARGS = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
];
const UNWANTED_ARGS = new Set([
  "--single-process",
  "--disable-web-security",
  "--allow-running-insecure-content",
]);

/** Content a hostile transcript carries; none of it may run or become markup. */
const HOSTILE = {
  script: `<script>window.__pwned = "script"</script>`,
  img: `<img src=x onerror="window.__pwned = 'img'">`,
  link: `[click me](javascript:window.__pwned='link') and [also](JaVaScRiPt:alert(1)) <a href="javascript:alert(2)">raw</a>`,
  svg: `<svg onload="window.__pwned='svg'"><circle r=1 /></svg>`,
  code: "```html\n<script>window.__pwned = 'fence'</script>\n```",
  encoded: `[encoded](&#106;avascript:window.__pwned='entity') ![pic](https://evil.example/pic.png)`,
  table: "| <b>head</b> | n |\n|-|-:|\n| <i onmouseover=\"window.__pwned='cell'\">cell</i> | 1 |",
};

let dir: string;
let db: string;
let served: Served;
let browser: Browser;
let base: string;
let totalCost = 0;
const dialogs: string[] = [];

interface Paired {
  sessionId: string;
  callId: string;
  result: Message;
}

/** A tool call in the store and the tool message that answered it. */
let paired: Paired;
let token: { token: string; sessionId: string; messageId: number };
let long: { sessionId: string; target: number };

beforeAll(async () => {
  fs.mkdirSync(OUTPUT, { recursive: true });
  dir = tempDir();
  db = path.join(dir, "browse.db");
  const corpus = corpusStore(db, 3000, 21);
  token = corpus.tokens.find((t) => t.indexedByFts && t.role === "assistant") as typeof token;
  withStore(db, (store) => {
    // Usage is not part of the corpus: record some, deterministic per session.
    store.listSessions({ includeArchived: true, limit: 10_000 }).forEach((s, i) => {
      const costUsd = ((i * 37) % 90) / 1000 + 0.001;
      totalCost += costUsd;
      store.recordUsage(s.id, {
        model: s.model ?? "unknown",
        inputTokens: 2000 + ((i * 131) % 7000),
        outputTokens: 300 + ((i * 17) % 1200),
        costUsd,
      });
    });
    // Both start before the corpus, so the list's first page (and its screenshot) is the corpus.
    store.createSession({
      id: "hostile",
      source: "cli",
      startedAt: 1_600_000_000,
      title: `<img src=x onerror="window.__pwned='title'">`,
    });
    store.appendMessages("hostile", [
      {
        role: "user",
        content: `${HOSTILE.script}\n\n${HOSTILE.img}\n\n${HOSTILE.link}\n\n${HOSTILE.encoded}\n\n${HOSTILE.table}`,
      },
      {
        role: "assistant",
        content: `${HOSTILE.svg}\n\n${HOSTILE.code}`,
        toolCalls: [
          {
            id: "evil_1",
            type: "function",
            function: {
              name: "<b>bash</b>",
              arguments: `{"cmd":"</script><script>window.__pwned='args'</script>"}`,
            },
          },
        ],
      },
      {
        role: "tool",
        toolName: "<b>bash</b>",
        toolCallId: "evil_1",
        content: `${HOSTILE.img} ${HOSTILE.script}`,
      },
    ]);
    // A session longer than one transcript page, for deep links into a later page.
    store.createSession({ id: "long", source: "cron", startedAt: 1_600_000_100, title: "a long session" });
    const ids = store.appendMessages(
      "long",
      Array.from(
        { length: 1200 },
        (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `step ${i}` }) as const,
      ),
    );
    long = { sessionId: "long", target: ids[1100] as number };
    for (const s of store.listSessions({ includeArchived: true, limit: 10_000 })) {
      const messages = store.getMessages(s.id);
      const result = messages.find(
        (m) =>
          m.role === "tool" &&
          m.toolCallId &&
          (m.content as string).length > 3000 &&
          m.toolName === "read_file",
      );
      if (result) {
        paired = { sessionId: s.id, callId: result.toolCallId as string, result };
        break;
      }
    }
  });
  served = await startServe(NODE, db);
  base = `http://127.0.0.1:${served.port}`;
  browser = await chromium.launch({
    executablePath: await chromiumPkg.executablePath(),
    // Its Lambda defaults run one process (closing a page would end the browser) and turn off
    // web security; a browser tested for XSS keeps its normal defences. The extra flags keep
    // Chromium from calling home: the tests talk to 127.0.0.1 only.
    args: [...chromiumPkg.args.filter((a) => !UNWANTED_ARGS.has(a)), ...QUIET_ARGS],
    headless: true,
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

async function open(url: string, scheme: "light" | "dark" = "light"): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 }, colorScheme: scheme });
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const response = await page.goto(base + url);
  expect(response?.status(), url).toBe(200);
  return page;
}

async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: path.join(OUTPUT, `${name}.png`), fullPage });
}

describe("serve in Chromium", () => {
  it("the session list loads, a source filter narrows it, a model filter counts exactly", async () => {
    const page = await open("/sessions");
    const rows = page.locator("#sessions tbody tr");
    expect(await rows.count()).toBe(50);
    await expect(page.locator("a[rel=next]").count()).resolves.toBe(1);
    await shot(page, "sessions");

    await page.selectOption("select[name=source]", "cron");
    await Promise.all([page.waitForURL(/source=cron/), page.click("form.filters button[type=submit]")]);
    const sources = await page.locator("#sessions tbody tr td:nth-child(2)").allTextContents();
    const expected = withStore(db, (s) => s.listSessions({ source: "cron", limit: 10_000 }).length);
    expect(sources.length).toBe(Math.min(50, expected));
    expect(sources.every((s) => s.trim() === "cron")).toBe(true);

    const model = withStore(
      db,
      (s) => s.listSessions({ limit: 10_000 }).find((x) => x.model)?.model as string,
    );
    const withModel = withStore(
      db,
      (s) => s.listSessions({ limit: 10_000 }).filter((x) => x.model === model).length,
    );
    await page.goto(`${base}/sessions?model=${encodeURIComponent(model)}`);
    await expect(page.locator(".pager span").first().textContent()).resolves.toMatch(
      new RegExp(`of ${withModel}$`),
    );
    await page.close();
  });

  it("a transcript shows a tool call with its arguments and, in the same card, the result that answered it, folded with its size", async () => {
    expect(paired, "the corpus has a long read_file result").toBeDefined();
    const page = await open(`/sessions/${paired.sessionId}`);
    const card = page.locator(`[id="call-${paired.callId}"]`);
    await expect(card.locator(".name b").textContent()).resolves.toBe("read_file");
    await expect(card.locator("pre").first().textContent()).resolves.toContain('"path"');
    const result = card.locator(".result");
    await expect(result.getAttribute("id")).resolves.toBe(`m-${paired.result.id}`);
    // The result is shown once: inside its call's card, not again on its own.
    expect(await page.locator(`[id="m-${paired.result.id}"]`).count()).toBe(1);
    const firstLine = (paired.result.content as string).split("\n")[0]?.trim() as string;
    await expect(result.locator("pre.preview").textContent()).resolves.toContain(firstLine);
    await expect(result.locator("details > summary").textContent()).resolves.toMatch(
      /Show all output · [\d.]+ KiB · [\d,]+ lines/,
    );
    expect(await page.locator("details.system-prompt[open]").count()).toBe(0);
    await page.locator(`[id="call-${paired.callId}"]`).scrollIntoViewIfNeeded();
    await shot(page, "transcript");
    await page.close();
  });

  it("search highlights its term and links to the message in its transcript", async () => {
    const page = await open(`/search?q=${token.token}`);
    await expect(page.locator("#route b").textContent()).resolves.toBe("fts");
    await expect(page.locator(".hit mark").allTextContents()).resolves.toEqual([token.token]);
    await shot(page, "search");
    await Promise.all([page.waitForURL(new RegExp(`#m-${token.messageId}$`)), page.click(".hit a.open")]);
    expect(new URL(page.url()).pathname).toBe(`/sessions/${token.sessionId}`);
    const target = page.locator(`[id="m-${token.messageId}"]`);
    await expect(target.isVisible()).resolves.toBe(true);
    await expect(target.textContent()).resolves.toContain(token.token);
    await page.close();
  });

  it("a deep link into a long session lands on the page that holds the message", async () => {
    const page = await open(`/sessions/${long.sessionId}/messages/${long.target}`);
    expect(page.url()).toMatch(new RegExp(`/sessions/long\\?after=\\d+#m-${long.target}$`));
    await expect(page.locator(`[id="m-${long.target}"]`).textContent()).resolves.toContain("step 1100");
    await page.close();
  });

  it('a malformed #fragment breaks no script: "/" still jumps to the search box', async () => {
    for (const url of [`/sessions/${paired.sessionId}#%E0`, "/usage#100%", "/sessions#%"]) {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(base + url);
      await page.waitForLoadState("load");
      await page.keyboard.press("/");
      const focused = await page.evaluate('document.activeElement?.getAttribute("name") ?? ""');
      expect(focused, url).toBe("q");
      expect(errors, url).toEqual([]);
      await page.close();
    }
  });

  it("the usage charts draw, with the numbers beside them", async () => {
    const page = await open("/usage");
    const bars = page.locator("#chart-tokens svg.chart rect.s0");
    expect(await bars.count()).toBeGreaterThan(1);
    const heights = await Promise.all(
      (await bars.all()).map(async (bar) => (await bar.boundingBox())?.height ?? 0),
    );
    expect(Math.max(...heights)).toBeGreaterThan(20);
    expect(await page.locator("#chart-models svg rect").count()).toBeGreaterThan(1);
    await expect(page.locator(".facts").textContent()).resolves.toContain(
      `$${totalCost.toFixed(2)} total cost`,
    );
    await shot(page, "usage", true);
    await page.close();
  });

  it("the health page shows the FTS state, journal mode, SQLite version and the WAL-reset verdict", async () => {
    const page = await open("/health");
    for (const check of ["fts", "journal mode", "sqlite", "wal-reset"])
      expect(await page.locator(`[data-check="${check}"]`).count(), check).toBe(1);
    await expect(page.locator('[data-check="fts"] p').textContent()).resolves.toBe("ready");
    await expect(page.locator('[data-check="sqlite"] p').textContent()).resolves.toMatch(/SQLite 3\.\d+/);
    await shot(page, "health");
    await page.close();
  });

  it("hostile content renders inert: no script runs, no handler, no javascript: link, no injected element", async () => {
    for (const url of [
      "/sessions/hostile",
      "/search?q=pwned&substring=1",
      "/sessions?source=cli",
      "/sessions/hostile/messages/1/raw",
    ]) {
      const page = await browser.newPage();
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await page.goto(base + url);
      // Runs in the page (a string: this package's types have no DOM).
      const found = (await page.evaluate(`({
        pwned: window.__pwned,
        inlineScripts: document.querySelectorAll("script:not([src])").length,
        scripts: [...document.querySelectorAll("script[src]")].map((s) => s.getAttribute("src")),
        handlers: [...document.querySelectorAll("*")].flatMap((el) =>
          [...el.attributes].filter((a) => a.name.toLowerCase().startsWith("on")).map((a) => el.tagName + " " + a.name)),
        jsLinks: [...document.querySelectorAll("[href],[src],[action]")]
          .map((el) => el.getAttribute("href") ?? el.getAttribute("src") ?? el.getAttribute("action") ?? "")
          .filter((v) => /^\\s*javascript:/i.test(v)),
        injected: document.querySelectorAll("main img, main svg:not(.chart), main circle, main iframe, main object, main embed").length,
      })`)) as {
        pwned: unknown;
        inlineScripts: number;
        scripts: string[];
        handlers: string[];
        jsLinks: string[];
        injected: number;
      };
      expect(found.pwned, url).toBeUndefined();
      expect(found.inlineScripts, url).toBe(0);
      expect(
        found.scripts.every((s) => /^\/assets\/app\.[0-9a-f]+\.js$/.test(s ?? "")),
        url,
      ).toBe(true);
      expect(found.handlers, url).toEqual([]);
      expect(found.jsLinks, url).toEqual([]);
      expect(found.injected, url).toBe(0);
      if (url === "/sessions/hostile") {
        const text = (await page.locator("#thread").textContent()) ?? "";
        expect(text).toContain(HOSTILE.script);
        expect(text).toContain("click me");
        await expect(page.locator("#thread a", { hasText: "click me" }).count()).resolves.toBe(0);
        await expect(page.locator("#thread a", { hasText: "encoded" }).count()).resolves.toBe(0);
        // An image is never loaded: it is a link named by its alt text.
        const pic = page.locator("#thread a", { hasText: "pic" });
        await expect(pic.getAttribute("href")).resolves.toBe("https://evil.example/pic.png");
        await expect(pic.getAttribute("rel")).resolves.toBe("noopener noreferrer nofollow");
        // A table renders as one, its cells' markup as text.
        await expect(page.locator("#thread .body table th").first().textContent()).resolves.toBe(
          "<b>head</b>",
        );
        await expect(page.locator("#thread .body table td").first().textContent()).resolves.toContain(
          "onmouseover",
        );
        await expect(page.locator(".call .name b").textContent()).resolves.toBe("<b>bash</b>");
        await shot(page, "hostile");
      }
      await page.close();
    }
    expect(dialogs).toEqual([]);
  });

  it("with --allow-write a session is renamed, archived and deleted through its page's forms (the browser's own Origin and Sec-Fetch-Site pass the CSRF rules)", async () => {
    const writable = path.join(dir, "writable.db");
    corpusStore(writable, 100, 3);
    const id = withStore(writable, (s) => s.listSessions({ limit: 1 })[0]?.id as string);
    const server = await startServe(NODE, writable, ["--allow-write"]);
    const page = await browser.newPage();
    try {
      const at = `http://127.0.0.1:${server.port}/sessions/${encodeURIComponent(id)}`;
      await page.goto(at);
      await page.click("details.manage summary");
      await shot(page, "transcript-manage");
      await page.fill("details.manage input[name=title]", "Renamed in the browser");
      await Promise.all([
        page.waitForLoadState("load"),
        page.click("details.manage form:nth-of-type(1) button"),
      ]);
      await expect(page.locator("h1").textContent()).resolves.toBe("Renamed in the browser");
      await page.click("details.manage summary");
      await Promise.all([
        page.waitForLoadState("load"),
        page.click("details.manage form:nth-of-type(2) button"),
      ]);
      await expect(page.locator(".facts .tag", { hasText: "archived" }).count()).resolves.toBe(1);
      await page.click("details.manage summary");
      await page.fill("details.manage input[name=confirm]", id);
      await Promise.all([page.waitForURL(/\/sessions$/), page.click("details.manage button.danger")]);
    } finally {
      await page.close();
      await server.stop();
    }
    expect(withStore(writable, (s) => s.getSession(id), { readOnly: true })).toBeUndefined();
  });

  it("dark mode follows prefers-color-scheme", async () => {
    const page = await open(`/sessions/${paired.sessionId}`, "dark");
    const background = String(await page.evaluate("getComputedStyle(document.body).backgroundColor"));
    const [r, g, b] = (background.match(/\d+/g) ?? []).map(Number);
    expect((r ?? 255) + (g ?? 255) + (b ?? 255)).toBeLessThan(150);
    await shot(page, "transcript-dark");
    await page.close();
  });
});
