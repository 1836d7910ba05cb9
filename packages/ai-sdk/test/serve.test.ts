/**
 * What `sessiondb serve` shows of a chat saved through saveChat: the built CLI serving the store
 * as a real subprocess, its transcript page fetched over HTTP. Each tool call's card holds the
 * result that answered it (paired by toolCallId), the failed call's error included. Needs the
 * built CLI (packages/cli: `npm run build`); skipped, saying so, without it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@sessiondb/node";
import { afterAll, describe, expect, it } from "vitest";
import { saveChat } from "../src/index.js";
import { turn } from "./support/chat.js";

const CLI = fileURLToPath(new URL("../../cli/dist/bin.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sessiondb-ai-sdk-serve-"));
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `sessiondb serve --port 0` on `db` and resolves with the address it prints. */
function serve(db: string): Promise<string> {
  child = spawn(process.execPath, [CLI, "--db", db, "serve", "--port", "0"], {
    env: { ...process.env, NO_COLOR: "1", SESSIONDB_SERVE_TOKEN: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no address: ${out}`)), 30_000);
    child?.stdout?.on("data", (data: Buffer) => {
      out += data.toString();
      const address = /^sessiondb serve: (http:\/\/\S+)$/m.exec(out)?.[1];
      if (address && /Ctrl-C stops$/m.test(out)) {
        clearTimeout(timer);
        resolve(address);
      }
    });
    child?.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

describe.skipIf(!existsSync(CLI))("sessiondb serve (needs the CLI built)", () => {
  it("shows a saved chat's tool calls with the results that answered them", async () => {
    const db = join(dir, "chats.db");
    const store = openStore(db);
    const chatId = "served-chat";
    await turn({
      history: [],
      user: "Weather in Paris, and fail once?",
      script: [
        {
          calls: [
            { id: "call-1", tool: "weather", input: { city: "Paris" } },
            { id: "call-2", tool: "fail", input: { why: "shown" } },
          ],
        },
        { text: "Paris is clear." },
      ],
      save: (messages) => saveChat(store, { chatId, messages }),
    });
    store.close();

    const base = await serve(db);
    const page = await fetch(new URL(`/sessions/${chatId}`, base));
    expect(page.status).toBe(200);
    const html = await page.text();
    const card = (id: string) => {
      const start = html.indexOf(`<div class="call" id="call-${id}">`);
      expect(start, `a card for ${id}`).toBeGreaterThan(-1);
      const next = html.indexOf('<div class="call"', start + 1);
      return html.slice(start, next === -1 ? undefined : next);
    };
    expect(card("call-1")).toContain('class="result"');
    expect(card("call-1")).toContain("clear");
    expect(card("call-2")).toContain("failed on purpose: shown");
    expect(html).not.toContain("No result recorded for this call");
    expect(html).toContain("Paris is clear.");
  });
});
