/**
 * The first run: `sessiondb demo` (what `npm start` runs) imports the project's own samples of
 * each format into a temporary store and serves it; the page lists the imported sessions.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { CLI } from "./helpers.js";
import { request } from "./serve-process.js";

describe("sessiondb demo", () => {
  it("imports the samples of each format and serves them, printing the address", async () => {
    const child = spawn(process.execPath, [CLI, "demo", "--port", "0"], {
      env: { ...process.env, NO_COLOR: "1", SESSIONDB_SERVE_TOKEN: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    try {
      for (let i = 0; i < 300 && !/Ctrl-C stops$/m.test(out); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain("claude-code: 2 sessions, 27 messages");
      expect(out).toContain("codex: 2 sessions, 33 messages");
      expect(out).toContain("hermes: 2 sessions, 18 messages");
      // opencode's sample database (built from its SQL): 6 messages, 28 parts, 4 tool results.
      expect(out).toContain("opencode: 2 sessions, 38 messages");
      const db = /a new store at (\S+)/.exec(out)?.[1] as string;
      expect(fs.existsSync(db)).toBe(true);
      const port = Number(new URL(/^sessiondb serve: (http:\/\/\S+)$/m.exec(out)?.[1] as string).port);
      const page = await request(port, "/sessions");
      expect(page.status).toBe(200);
      expect(page.body).toContain("Fix East Asian width");
      expect(page.body).toContain("Width fix (ada)");
      expect(page.body).toContain("Fix the ünïcode width bug 表");
      expect(page.body).toContain("Widget zu breit — fix 🚀");
      fs.rmSync(db.replace(/\/demo\.db$/, ""), { recursive: true, force: true });
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  }, 60_000);
});
