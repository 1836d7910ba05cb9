/** Test helpers: run the real built CLI as a subprocess, and build real stores from the bench corpus. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { buildStore, type CorpusSummary } from "@sessiondb/bench/corpus";
import { type NodeStoreOptions, openStore, type Store } from "@sessiondb/node";

export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
export const ROOT_BIN = fileURLToPath(new URL("../../../node_modules/.bin/", import.meta.url));
const HOLD_LOCK = fileURLToPath(new URL("./fixtures/hold-lock.mjs", import.meta.url));

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `<runtime> dist/cli.js ...args` and wait for it. */
export function cli(
  args: string[],
  options: { env?: Record<string, string>; input?: string; runtime?: string[] } = {},
): Result {
  const [exe, ...pre] = options.runtime ?? [process.execPath];
  const r = spawnSync(exe as string, [...pre, CLI, ...args], {
    encoding: "utf8",
    input: options.input ?? "",
    env: { ...process.env, NO_COLOR: "1", SESSIONDB_PATH: "", ...options.env },
    maxBuffer: 512 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
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

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "sessiondb-cli-"));
}

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

/** Spawn the CLI without waiting (for signals). */
export function spawnCli(args: string[]): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}
