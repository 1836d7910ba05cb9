/** Test helpers: run the real built CLI as a subprocess, and build real stores from the bench corpus. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { buildStore, type CorpusSummary } from "@sessiondb/bench/corpus";
import { betterSqlite3Driver, type NodeStoreOptions, openStore, type Store } from "@sessiondb/node";
import { afterAll, expect } from "vitest";

export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
export const ROOT_BIN = fileURLToPath(new URL("../../../node_modules/.bin/", import.meta.url));
const HOLD_LOCK = fileURLToPath(new URL("./fixtures/hold-lock.mjs", import.meta.url));

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The longest one CLI call here may take (the slowest takes seconds). */
const CLI_CALL_LIMIT_MS = 300_000;

/** Run `<runtime> dist/cli.js ...args` and wait for it. */
export function cli(
  args: string[],
  options: {
    env?: Record<string, string>;
    input?: string;
    runtime?: string[];
    /** stdin redirected from this file (a shell's `< file`) instead of `input`. */
    stdinFile?: string;
  } = {},
): Result {
  const [exe, ...pre] = options.runtime ?? [process.execPath];
  const stdin = options.stdinFile === undefined ? undefined : fs.openSync(options.stdinFile, "r");
  try {
    const r = spawnSync(exe as string, [...pre, CLI, ...args], {
      encoding: "utf8",
      ...(stdin === undefined ? { input: options.input ?? "" } : { stdio: [stdin, "pipe", "pipe"] }),
      env: { ...process.env, NO_COLOR: "1", SESSIONDB_PATH: "", ...options.env },
      maxBuffer: 512 * 1024 * 1024,
      // A call that never ends would hold this worker for ever (a synchronous spawn leaves the
      // test's timeout no turn to fire): end it and say so instead.
      timeout: CLI_CALL_LIMIT_MS,
      killSignal: "SIGKILL",
    });
    const stderr = r.error ? `${r.stderr ?? ""}\n[test helper: ${r.error.message}]` : r.stderr;
    return { code: r.status, stdout: r.stdout, stderr };
  } finally {
    if (stdin !== undefined) fs.closeSync(stdin);
  }
}

/** One runtime the CLI runs on: its command line, environment, and the driver it must report. */
export interface Target {
  name: string;
  runtime: string[];
  env?: Record<string, string>;
  driver: string;
}

const NODE24 = path.join(ROOT_BIN, "node");

/** Node 20 + better-sqlite3, Node 24 + node:sqlite, Bun, Deno: those installed here. */
export const TARGETS: Target[] = [
  {
    name: "node + better-sqlite3",
    runtime: [process.env.SESSIONDB_HOST_NODE || "/usr/bin/node"],
    env: { SESSIONDB_DRIVER: "better-sqlite3" },
    driver: "better-sqlite3",
  },
  {
    name: "node 24 + node:sqlite",
    runtime: [NODE24],
    env: { SESSIONDB_DRIVER: "node:sqlite" },
    driver: "node:sqlite",
  },
  { name: "bun", runtime: [path.join(ROOT_BIN, "bun")], driver: "bun:sqlite" },
  { name: "deno", runtime: [path.join(ROOT_BIN, "deno"), "run", "-A"], driver: "node:sqlite" },
].filter((t) => fs.existsSync(t.runtime[0] as string));

/**
 * Where the cases run whose outcome is the same on every runtime: wording, tables, filters,
 * option errors — the CLI's own JavaScript over the Store API, whose every driver the
 * conformance suites cover. Node 20 + better-sqlite3: the Node that runs the tests, always
 * present (the others are skipped where not installed). A case whose outcome
 * can differ by runtime (the terminal, the file system, the SQLite binding, Intl number and
 * width handling, signals, the environment) runs on every one of TARGETS instead.
 */
export const ONE_RUNTIME: Target[] = TARGETS.slice(0, 1);

/** `cli` on one target. */
export function runOn(target: Target): (args: string[], input?: string) => Result {
  return (args, input) =>
    cli(args, {
      runtime: target.runtime,
      ...(target.env ? { env: target.env } : {}),
      ...(input ? { input } : {}),
    });
}

/** Parse stdout as JSON (fails the test with stderr when it is not). */
// biome-ignore lint/suspicious/noExplicitAny: test assertions index freely into CLI output
export function json<T = any>(result: Result): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(
      `stdout is not JSON (exit ${result.code}): ${result.stdout.slice(0, 300)} / stderr: ${result.stderr}`,
    );
  }
}

/** `sessions list --json` output as sorted [id, model, messageCount, parentSessionId] rows: what an
 * import test compares. */
export function sessionShapes(result: Result): [string, string, number, string | null][] {
  const { sessions } = json<{
    sessions: { id: string; model: string; messageCount: number; parentSessionId: string | null }[];
  }>(result);
  return sessions
    .map((s) => [s.id, s.model, s.messageCount, s.parentSessionId] as [string, string, number, string | null])
    .sort();
}

/** Folders made by `tempDir()` in this test file, removed after its last test. */
const tempDirs: string[] = [];

/** A new folder under the system's temporary folder, removed when the test file is done
 * (vitest runs each test file in a fresh module graph: the list is the file's own). */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sessiondb-cli-"));
  tempDirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A real store at `file` filled with the seeded bench corpus. */
export function corpusStore(
  file: string,
  messages: number,
  seed = 7,
  options: NodeStoreOptions = {},
): CorpusSummary {
  const store = openStore(file, options);
  try {
    return buildStore(store, { seed, messages });
  } finally {
    store.close();
  }
}

/** Open a store in this (test) process, run `fn`, close. */
export function withStore<T>(file: string, fn: (store: Store) => T, options: NodeStoreOptions = {}): T {
  const store = openStore(file, options);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** Where the b-tree of table or index `name` starts in the store at `file`: its root page number
 * and the page size, read through a connection of the test's own (to damage that b-tree). */
export function bTreeRoot(file: string, name: string): { root: number; pageSize: number } {
  const connection = betterSqlite3Driver().open(file, { readOnly: true });
  try {
    const found = connection.prepare("SELECT rootpage FROM sqlite_master WHERE name = ?").get(name);
    if (!found) throw new Error(`no ${name} in ${file}`);
    const pageSize = connection.prepare("PRAGMA page_size").get()?.page_size;
    return { root: Number(found.rootpage), pageSize: Number(pageSize) };
  } finally {
    connection.close();
  }
}

/** Another process holding a real SQLite lock on `file` until `release()`. */
export async function holdLock(
  file: string,
  mode: "exclusive" | "immediate",
): Promise<{ release(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [HOLD_LOCK, file, mode], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
    child.on("exit", (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
  return {
    release: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners("exit");
        child.on("exit", () => resolve());
        child.stdin?.end();
      }),
  };
}

/** Spawn the CLI without waiting (for signals), on this Node or on `target`. */
export function spawnCli(args: string[], target?: Target): ChildProcess {
  const [exe, ...pre] = target?.runtime ?? [process.execPath];
  return spawn(exe as string, [...pre, CLI, ...args], {
    env: { ...process.env, NO_COLOR: "1", ...target?.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Spawn the CLI without waiting, its stderr collected: `closed` settles with the exit code and
 * all of stderr ("close", not "exit": stderr is complete only then). */
export function startCli(
  args: string[],
  target?: Target,
): {
  child: ChildProcess;
  closed: Promise<{ code: number | null; stderr: string }>;
} {
  const child = spawnCli(args, target);
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const closed = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stderr })),
  );
  return { child, closed };
}

/** Assert that the CLI failed the way every CLI error fails: one line on stderr ending in
 * `[code]`, the given exit code, no stack trace. */
export function expectOneLineError(r: Result, exit: number, code: string | RegExp): void {
  expect(r.code, r.stderr).toBe(exit);
  const lines = r.stderr.split("\n").filter(Boolean);
  expect(lines, r.stderr).toHaveLength(1);
  const pattern = typeof code === "string" ? code.replace(/\W/g, "\\$&") : code.source;
  expect(lines[0]).toMatch(new RegExp(`^sessiondb: .+ \\[(?:${pattern})\\]$`));
  expect(r.stderr).not.toMatch(/^\s+at /m);
}

/** What a store holds (read-only, in this process), and whether `sessiondb check` finds it sound. */
export function storeState(file: string): { check: number | null; sessions: number; messages: number } {
  const counts = withStore(
    file,
    (store) => ({
      sessions: store.listSessions({ includeArchived: true, limit: 1_000_000 }).length,
      messages: store.messageCount(),
    }),
    { readOnly: true },
  );
  return { check: cli(["--db", file, "check"]).code, ...counts };
}

/** SHA-256 of a file's bytes. */
export function digest(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/** Every entry under `dir` (hidden ones too), relative, sorted. */
export function filesIn(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
}

/** Mount a tmpfs at `dir` (made if missing); the reason it could not be, or undefined. Needs
 * root (or CAP_SYS_ADMIN): CI machines without it skip the tests that need one and say why. */
export function mountTmpfs(dir: string, options: string): string | undefined {
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir], { encoding: "utf8" });
  if (r.error) return `mount could not run (${r.error.message})`;
  return r.status === 0 ? undefined : `mount -t tmpfs failed: ${r.stderr.trim() || `exit ${r.status}`}`;
}

/** Mount a tmpfs at `dir`, or skip the test saying why it could not be. */
export function tmpfsOrSkip(ctx: { skip: (reason: string) => void }, dir: string, options: string): void {
  const reason = mountTmpfs(dir, options);
  if (reason) {
    console.warn(`skipped: needs a small tmpfs: ${reason}`);
    ctx.skip(reason);
  }
}

export function unmount(dir: string): void {
  spawnSync("umount", [dir]);
}
