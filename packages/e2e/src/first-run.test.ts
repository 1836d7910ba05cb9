/**
 * The first run in a browser: `sessiondb demo` (what the README's `npm start` runs after the
 * build) imports the project's own samples of each agent format into a temporary store and
 * serves it; headless Chromium finds the imported sessions of every format, a transcript with a
 * tool call paired with its result, and search over them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./browser.js";

const CLI = fileURLToPath(new URL("../../cli/dist/bin.js", import.meta.url));
const NODE = process.env.SESSIONDB_HOST_NODE || process.execPath;

let demo: ChildProcess;
let exited: Promise<unknown>;
let out = "";
let base: string;
let browser: Browser;

describe.skipIf(!fs.existsSync(CLI))(
  "the first run, sessiondb demo, in Chromium (needs the CLI built)",
  () => {
    beforeAll(async () => {
      demo = spawn(NODE, [CLI, "demo", "--port", "0"], {
        env: { ...process.env, NO_COLOR: "1", SESSIONDB_SERVE_TOKEN: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      exited = new Promise((resolve) => demo.on("exit", resolve));
      base = await new Promise<string>((resolve, reject) => {
        demo.stdout?.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const address = /^sessiondb serve: (http:\/\/127\.0\.0\.1:\d+)\/?$/m.exec(out);
          if (address) resolve(address[1] as string);
        });
        demo.on("exit", (code) => reject(new Error(`demo exited with ${code}: ${out}`)));
      });
      browser = await launchChromium();
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      demo?.kill("SIGTERM");
      await exited;
      const db = /a new store at (\S+)/.exec(out)?.[1];
      if (db) fs.rmSync(db.replace(/\/demo\.db$/, ""), { recursive: true, force: true });
    });

    it("lists the imported sessions of every format", async () => {
      const page = await browser.newPage();
      expect((await page.goto(`${base}/sessions`))?.status()).toBe(200);
      const sources = await page.locator("#sessions tbody tr").allTextContents();
      expect(sources.some((row) => row.includes("claude-code"))).toBe(true);
      expect(sources.some((row) => row.includes("codex"))).toBe(true);
      expect(sources.some((row) => row.includes("hermes"))).toBe(true);
      expect(sources.some((row) => row.includes("opencode"))).toBe(true);
      await page.close();
    });

    it("a transcript shows a tool call with the result that answered it", async () => {
      const page = await browser.newPage();
      await page.goto(`${base}/sessions?source=claude-code`);
      const links = await page
        .locator("#sessions tbody tr a")
        .evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).getAttribute("href") ?? ""));
      let paired = 0;
      for (const href of links.filter((h) => h.startsWith("/sessions/"))) {
        await page.goto(base + href);
        paired += await page.locator("[id^='call-'] .result").count();
      }
      expect(paired).toBeGreaterThan(0);
      await page.close();
    });

    it("search finds imported text and names its route", async () => {
      const page = await browser.newPage();
      await page.goto(`${base}/search?q=width`);
      expect(await page.locator(".hit").count()).toBeGreaterThan(0);
      await expect(page.locator("#route b").textContent()).resolves.toMatch(/^(fts|trigram|like|fts\+like)$/);
      await page.close();
    });
  },
);
