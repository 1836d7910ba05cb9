/**
 * Sessions written through each framework binding, browsed in `sessiondb serve` in a real
 * headless Chromium (shipped inside @sparticuz/chromium, driven by playwright-core): each
 * binding's tool call shows in its card with the result that answered it, and search finds the
 * binding's text. The bindings write the store in this process; the built CLI serves it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { saveChat } from "@sessiondb/ai-sdk";
import { SessionDbSessionStore } from "@sessiondb/claude-agent-sdk";
import { openStore } from "@sessiondb/node";
import { SessionDbSession } from "@sessiondb/openai-agents";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./browser.js";

const CLI = fileURLToPath(new URL("../../cli/dist/bin.js", import.meta.url));
const NODE = process.env.SESSIONDB_HOST_NODE || process.execPath;
/** What each binding wrote: the session, the tool call's id, and a word only its result holds. */
interface Written {
  sessionId: string;
  callId: string;
  toolName: string;
  resultWord: string;
}

const written: Record<string, Written> = {};
let dir: string;
let server: ChildProcess;
let base: string;
let browser: Browser;

async function writeThroughBindings(db: string): Promise<void> {
  const store = openStore(db);
  try {
    saveChat(store, {
      chatId: "chat-ai-sdk",
      messages: [
        { id: "u1", role: "user", parts: [{ type: "text", text: "What is the weather in Oslo?" }] },
        {
          id: "a1",
          role: "assistant",
          parts: [
            { type: "step-start" },
            {
              type: "tool-weather",
              toolCallId: "call-ai-1",
              state: "output-available",
              input: { city: "Oslo" },
              output: { forecast: "drizzlequux" },
            },
            { type: "text", text: "It drizzles in Oslo." },
          ],
        },
      ],
    });
    written["ai-sdk"] = {
      sessionId: "chat-ai-sdk",
      callId: "call-ai-1",
      toolName: "weather",
      resultWord: "drizzlequux",
    };

    const session = new SessionDbSession({ store, sessionId: "agents-run" });
    await session.addItems([
      { type: "message", role: "user", content: "Find order 1234" },
      { type: "function_call", callId: "call-oa-1", name: "find_order", arguments: '{"id":1234}' },
      {
        type: "function_call_result",
        callId: "call-oa-1",
        name: "find_order",
        status: "completed",
        output: { type: "text", text: "shippedzorb on Monday" },
      },
    ]);
    written["openai-agents"] = {
      sessionId: "agents-run",
      callId: "call-oa-1",
      toolName: "find_order",
      resultWord: "shippedzorb",
    };

    const claude = new SessionDbSessionStore({ store });
    const line = { sessionId: "claude-run", cwd: "/work/app", version: "2.1.0", isSidechain: false };
    await claude.append({ projectKey: "-work-app", sessionId: "claude-run" }, [
      {
        ...line,
        type: "user",
        uuid: "c-u1",
        parentUuid: null,
        timestamp: "2026-12-01T10:00:00.000Z",
        message: { role: "user", content: "Why does the build fail?" },
      },
      {
        ...line,
        type: "assistant",
        uuid: "c-a1",
        parentUuid: "c-u1",
        timestamp: "2026-12-01T10:00:01.000Z",
        requestId: "req_1",
        message: {
          id: "msg_1",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "npm test" } }],
          usage: { input_tokens: 10, output_tokens: 5 },
        },
      },
      {
        ...line,
        type: "user",
        uuid: "c-u2",
        parentUuid: "c-a1",
        timestamp: "2026-12-01T10:00:02.000Z",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "missingscriptblorp: test" }],
        },
      },
    ]);
    written["claude-agent-sdk"] = {
      sessionId: "claude-run",
      callId: "toolu_1",
      toolName: "Bash",
      resultWord: "missingscriptblorp",
    };
  } finally {
    store.close();
  }
}

/** `sessiondb serve --port 0` on the store; resolves with its address. */
function startServe(db: string): Promise<string> {
  server = spawn(NODE, [CLI, "--db", db, "serve", "--port", "0"], {
    env: { ...process.env, NO_COLOR: "1", SESSIONDB_SERVE_TOKEN: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    server.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const address = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (address) resolve(address[0]);
    });
    server.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    server.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}

describe.skipIf(!fs.existsSync(CLI))(
  "sessions written through the bindings, in serve (needs the CLI built)",
  () => {
    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "serve-bindings-"));
      const db = path.join(dir, "bindings.db");
      await writeThroughBindings(db);
      base = await startServe(db);
      browser = await launchChromium();
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      server?.kill("SIGTERM");
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    for (const binding of ["ai-sdk", "openai-agents", "claude-agent-sdk"]) {
      it(`${binding}: the tool call's card holds the result that answered it`, async () => {
        const w = written[binding] as Written;
        const page = await browser.newPage();
        const response = await page.goto(`${base}/sessions/${encodeURIComponent(w.sessionId)}`);
        expect(response?.status()).toBe(200);
        const card = page.locator(`[id="call-${w.callId}"]`);
        await expect(card.locator(".name").first().textContent()).resolves.toContain(w.toolName);
        await expect(card.locator(".result").textContent()).resolves.toContain(w.resultWord);
        await page.close();
      });

      it(`${binding}: search finds the result and links into the session`, async () => {
        const w = written[binding] as Written;
        const page = await browser.newPage();
        await page.goto(`${base}/search?q=${w.resultWord}&role=tool`);
        const hit = page.locator(".hit a.open").first();
        await expect(hit.getAttribute("href")).resolves.toContain(
          `/sessions/${encodeURIComponent(w.sessionId)}`,
        );
        await page.close();
      });
    }
  },
);
