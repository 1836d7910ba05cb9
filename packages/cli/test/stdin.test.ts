/**
 * A command that does not read stdin leaves it as it found it. Node makes a pipe non-blocking
 * when `process.stdin` is first created, and importing `node:process` creates it (the module's
 * facade reads every property of `process`). The pipe is shared with whatever else the shell
 * gave it to — `… | { sessiondb stats; cat; }`, or a parallel reader — which then failed with
 * EAGAIN ("Resource temporarily unavailable") while the command ran. Linux only (/proc).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { cli, TARGETS, tempDir, withStore } from "./helpers.js";

const PRELOAD = new URL("./fixtures/stdin-flags.mjs", import.meta.url).href;
const NODE_TARGETS = TARGETS.filter((t) => path.basename(t.runtime[0] as string) === "node");
const O_NONBLOCK = 0o4000;
const hasProc = fs.existsSync("/proc/self/fdinfo/0");

/** stdin's flags at exit, as the preload reported them. */
function stdinFlags(stderr: string): number {
  const match = /stdin-flags ([0-7]+)/.exec(stderr);
  expect(match, stderr).not.toBeNull();
  return Number.parseInt(match?.[1] as string, 8);
}

describe.skipIf(!hasProc).each(NODE_TARGETS)("on $name (needs /proc)", (target) => {
  it("commands that do not read stdin leave a piped stdin blocking", () => {
    const dir = tempDir();
    const db = path.join(dir, "state.db");
    withStore(db, (store) => {
      store.createSession({ id: "s1", source: "cli" });
      store.appendMessage("s1", { role: "user", content: "how do I run the migration" });
    });
    for (const args of [
      ["stats"],
      ["search", "migration", "--json"],
      ["sessions", "list"],
      ["export"],
      ["doctor"],
    ]) {
      const r = cli(["--db", db, ...args], {
        runtime: [...target.runtime, "--import", PRELOAD],
        ...(target.env ? { env: target.env } : {}),
      });
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect(stdinFlags(r.stderr) & O_NONBLOCK, args.join(" ")).toBe(0);
    }
  });

  it("the preload sees a stdin made non-blocking (so the check above can fail)", () => {
    const [exe, ...pre] = target.runtime;
    const r = spawnSync(exe as string, [...pre, "--import", PRELOAD, "-e", "process.stdin"], {
      encoding: "utf8",
      input: "",
      env: { ...process.env, ...target.env },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(stdinFlags(r.stderr) & O_NONBLOCK).toBe(O_NONBLOCK);
  });
});
