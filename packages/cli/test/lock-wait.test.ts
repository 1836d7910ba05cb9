/**
 * A command that waits for another process's lock says so after about a second, once, on
 * stderr — on every runtime (the notice is written while the library's wait blocks the thread).
 * The lock holder is a real second process holding BEGIN IMMEDIATE.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, holdLock, runOn, TARGETS, tempDir, withStore } from "./helpers.js";

const NOTICE =
  /^sessiondb: waiting for another process's write to .*state\.db to finish \(up to 2\.5 s; --wait MS sets how long\)$/;

let dir: string;

beforeAll(() => {
  dir = tempDir();
});

function store(name: string): string {
  const file = path.join(dir, name, "state.db");
  fs.mkdirSync(path.dirname(file));
  withStore(file, (s) => s.createSession({ id: "s1", source: "cli" }));
  return file;
}

describe.each(TARGETS)("$name: waiting for a lock", (target) => {
  const run = runOn(target);
  const slug = target.name.replace(/\W+/g, "-");

  it("says once on stderr that it waits, and for how long; then exits 4 STORE_BUSY", async () => {
    const file = store(`${slug}-busy`);
    const holder = await holdLock(file, "immediate");
    try {
      const r = run(["--db", file, "--wait", "2500", "sessions", "rename", "s1", "new title"]);
      expect(r.code, r.stderr).toBe(4);
      const lines = r.stderr.split("\n").filter(Boolean);
      expect(lines, r.stderr).toHaveLength(2);
      expect(lines[0]).toMatch(NOTICE);
      expect(lines[1]).toMatch(/^sessiondb: .*\[STORE_BUSY\]$/);
      expect(r.stdout).toBe("");

      const j = run(["--db", file, "--wait", "2500", "sessions", "rename", "s1", "new title", "--json"]);
      expect(j.code, j.stderr).toBe(4);
      expect(j.stdout).toBe("");
      const jl = j.stderr.split("\n").filter(Boolean);
      expect(jl, j.stderr).toHaveLength(2);
      expect(jl[0]).toMatch(NOTICE);
      expect(JSON.parse(jl[1] as string)).toMatchObject({ error: { code: "STORE_BUSY", exit: 4 } });
    } finally {
      await holder.release();
    }
  });

  it("check and doctor under another process's write lock: exit 4 STORE_BUSY, never a finding of corruption", async () => {
    const file = store(`${slug}-check`);
    const holder = await holdLock(file, "immediate");
    try {
      for (const command of ["check", "doctor"]) {
        const r = run(["--db", file, "--wait", "1000", command]);
        expect(r.code, r.stderr).toBe(4);
        expect(r.stderr).toMatch(/\[STORE_BUSY\]$/m);
        expect(`${r.stdout}${r.stderr}`).not.toMatch(/integrity-check failed|corrupt/i);
      }
    } finally {
      await holder.release();
    }
    expect(run(["--db", file, "check"]).code).toBe(0);
  });

  /** Run `args` against `file` while another process holds its write lock; release the lock as
   * soon as the notice arrives (so the wait was seen while it was happening). */
  async function noticeThenRelease(file: string, args: string[]) {
    const holder = await holdLock(file, "immediate");
    const [exe, ...pre] = target.runtime;
    const started = Date.now();
    const child = spawn(exe as string, [...pre, CLI, "--db", file, ...args], {
      env: { ...process.env, NO_COLOR: "1", SESSIONDB_PATH: "", ...target.env },
      stdio: "pipe",
    });
    let stderr = "";
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const noticedAfter = await new Promise<number>((resolve, reject) => {
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes("\n")) resolve(Date.now() - started);
      });
      void exited.then(() => reject(new Error(`exited before any notice: ${stderr}`)));
    }).finally(() => holder.release());
    const code = await exited;
    return { code, stdout, stderr, noticedAfter };
  }

  it("the notice comes while it waits; when the lock goes, the command finishes (exit 0)", async () => {
    const r = await noticeThenRelease(store(`${slug}-released`), [
      "--wait",
      "2500",
      "sessions",
      "rename",
      "s1",
      "renamed",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(NOTICE);
    // About a second of waiting (plus the process's start), well before the 2.5 s budget ran out.
    expect(r.noticedAfter).toBeGreaterThanOrEqual(1000);
    expect(r.stdout).toContain('"renamed"');
  });

  it("without --wait the notice names the library's budget: 60 s for import's appends", async () => {
    const file = store(`${slug}-import`);
    const jsonl = path.join(dir, `${slug}-import.jsonl`);
    fs.writeFileSync(jsonl, '{"type":"session","id":"s2","source":"cli","started_at":1}\n');
    const r = await noticeThenRelease(file, ["import", jsonl]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toMatch(/^sessiondb: waiting for .*\(up to 60 s; --wait MS sets how long\)$/);
  });

  it("a lock met while the store opens: the notice names the open's limit (20 s), not import's 60 s", async () => {
    // Another process creating the store holds the write lock on the new, still empty file:
    // import's open waits for it to install the schema.
    const folder = path.join(dir, `${slug}-opening`);
    fs.mkdirSync(folder);
    const file = path.join(folder, "state.db");
    const jsonl = path.join(dir, `${slug}-opening.jsonl`);
    fs.writeFileSync(jsonl, '{"type":"session","id":"s2","source":"cli","started_at":1}\n');
    const r = await noticeThenRelease(file, ["import", jsonl]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toMatch(/^sessiondb: waiting for .*\(up to 20 s; --wait MS sets how long\)$/);
    expect(withStore(file, (s) => s.getSession("s2")?.id)).toBe("s2");
  });

  it("no wait, no notice", () => {
    const file = store(`${slug}-free`);
    const r = run(["--db", file, "sessions", "rename", "s1", "free"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
  });
});
