/**
 * FTS guarantees with real processes: the admission lock held by another process (fail closed
 * at once, wait with a budget, released by kill -9), environment failures classified without
 * waiting, and a backfill killed between and inside steps that resumes in another process to
 * an index where every row is found exactly once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { admissionLockPath } from "@sessiondb/core";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";
import { availableDriverNames } from "./drivers-here.js";

const LOCK_CHILD = new URL("./fixtures/admission-lock-child.mjs", import.meta.url).pathname;
const BACKFILLER = new URL("./fixtures/backfiller.mjs", import.meta.url).pathname;
const BUILT = new URL("../dist/index.js", import.meta.url).pathname;
const [driver] = availableDriverNames();

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratchDb(): string {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-ftsp-"));
  dirs.push(dir);
  return join(dir, "state.db");
}

function seeded(db: string, messages: number, padding = 0): string[] {
  const store = openStore(db, { driver });
  store.createSession({ id: "s", source: "test" });
  const tokens: string[] = [];
  const pad = " lorem ipsum dolor".repeat(padding);
  for (let i = 0; i < messages; i += 100) {
    const batch = [];
    for (let j = i; j < Math.min(i + 100, messages); j++) {
      tokens.push(`uniq${j}tok`);
      batch.push({ role: "assistant" as const, content: `row uniq${j}tok${pad}` });
    }
    store.appendMessages("s", batch);
  }
  store.close();
  return tokens;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/** Start the lock-holding child and wait until it holds the lock. */
async function holdAdmission(db: string, holdMs: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [LOCK_CHILD, driver as string, admissionLockPath(db), "hold", String(holdMs), "record"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      if (out.includes("ready")) resolve();
    });
    child.once("exit", () => reject(new Error(`lock child exited early: ${out}`)));
  });
  return child;
}

function logLines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : [];
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe.skipIf(!existsSync(BUILT) || !driver)(`FTS with real processes [${driver}]`, () => {
  it("a child holding the admission lock: fail closed at once, wait with a budget, freed by kill -9", async () => {
    const db = scratchDb();
    seeded(db, 50);
    const store = openStore(db, { driver });
    try {
      const holder = await holdAdmission(db, 0);
      let started = Date.now();
      const denied = store.rebuildFts({ timeoutMs: 0 });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(denied.rebuilt).toBe(false);
      expect(denied.reason).toContain(String(holder.pid));

      const shortHolder = holder;
      shortHolder.kill("SIGKILL");
      await exited(shortHolder);
      expect(store.rebuildFts({ timeoutMs: 0 })).toEqual({ rebuilt: true });

      await holdAdmission(db, 1500);
      started = Date.now();
      expect(store.rebuildFts({ timeoutMs: 30_000 })).toEqual({ rebuilt: true });
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThan(800);
      expect(waited).toBeLessThan(20_000);
      expect(store.checkIntegrity()).toEqual({ ok: true, problems: [] });
    } finally {
      store.close();
    }
  }, 60_000);

  it("an environment failure (lock path is a directory) defers at once with the real code", () => {
    const db = scratchDb();
    seeded(db, 10);
    rmSync(admissionLockPath(db), { force: true });
    mkdirSync(admissionLockPath(db));
    const store = openStore(db, { driver });
    try {
      const started = Date.now();
      const result = store.rebuildFts({ timeoutMs: 30_000 });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(result.rebuilt).toBe(false);
      expect(result.reason).toMatch(/CANTOPEN/);
      expect(result.reason).not.toMatch(/held by another process/i);
      expect(store.search("uniq3tok").route).toBe("fts");
    } finally {
      store.close();
    }
  });

  it("a backfill killed between and inside steps resumes in another process; every row found once", async () => {
    const db = scratchDb();
    const tokens = seeded(db, 3000, 60);
    const log = join(db, "..", "backfill.log");
    const run = (chunk: number) => {
      const child = spawn(process.execPath, [BACKFILLER, db, driver as string, String(chunk), log], {
        stdio: "inherit",
      });
      children.push(child);
      return child;
    };
    // Killed right after a step committed: between steps (or just inside the next one).
    let child = run(100);
    await until(() => logLines(log).filter((l) => l === "step").length >= 3, "three steps");
    child.kill("SIGKILL");
    await exited(child);
    const stepsBefore = logLines(log).filter((l) => l === "step").length;
    // One huge chunk: killed while its transaction is open.
    child = run(2500);
    await until(() => logLines(log).filter((l) => l === "ready").length >= 2, "second start");
    await new Promise((resolve) => setTimeout(resolve, 15));
    child.kill("SIGKILL");
    await exited(child);
    const mid = openStore(db, { driver, readOnly: true });
    const status = mid.ftsStatus();
    mid.close();
    expect(status.state).toBe("backfilling");
    expect(status.indexed).toBeGreaterThanOrEqual(stepsBefore * 100);
    // Resumed to the end by a fresh process.
    child = run(400);
    await exited(child);
    expect(logLines(log).at(-1)).toBe("done");

    const store = openStore(db, { driver });
    try {
      expect(store.ftsStatus().state).toBe("ready");
      expect(store.checkIntegrity()).toEqual({ ok: true, problems: [] });
      for (const token of tokens) {
        const result = store.search(token);
        expect(result.route).toBe("fts");
        expect(result.hits.length, token).toBe(1);
      }
    } finally {
      store.close();
    }
  }, 120_000);
});
