/** Child processes of the same runtime: timed synchronous runs, and long-lived async ones. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { now } from "./stats.js";

/** Absolute path of a built script next to this file's bundle (dist/…). */
export const script = (name: string): string => fileURLToPath(new URL(`./${name}`, import.meta.url));

/** Run `[...exec, file, ...args]` to completion; wall time in ms and stdout. Throws on failure. */
export function runTimed(
  exec: readonly string[],
  file: string,
  args: readonly string[],
): { ms: number; stdout: string } {
  const t0 = now();
  const result = spawnSync(exec[0] as string, [...exec.slice(1), file, ...args], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  const ms = now() - t0;
  if (result.status !== 0) {
    throw new Error(
      `${file} ${args.join(" ")} exited ${result.status ?? result.signal}: ${String(result.stderr).trim().slice(-2000)}`,
    );
  }
  return { ms, stdout: String(result.stdout) };
}

/** The last line of stdout parsed as JSON. */
export function lastJson<T>(stdout: string): T {
  const lines = stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1] as string) as T;
}

/** A child whose stdout is collected; `line(text)` resolves when that line is printed. */
export interface Child {
  proc: ChildProcess;
  /** Resolves when the child printed `text` on a line of its own. */
  line(text: string): Promise<void>;
  /** Resolves with stdout once the child exited 0; rejects with stderr otherwise. */
  done: Promise<string>;
}

/** Start `[...exec, file, ...args]` in the background. */
export function start(exec: readonly string[], file: string, args: readonly string[]): Child {
  const proc = spawn(exec[0] as string, [...exec.slice(1), file, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  proc.stdout?.setEncoding("utf8");
  proc.stderr?.setEncoding("utf8");
  proc.stdout?.on("data", (chunk: string) => {
    stdout += chunk;
    for (const w of waiters.splice(0)) {
      if (stdout.split("\n").includes(w.text)) w.resolve();
      else waiters.push(w);
    }
  });
  proc.stderr?.on("data", (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<string>((resolve, reject) => {
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${file} exited ${code}: ${stderr.trim().slice(-2000)}`));
    });
  });
  return {
    proc,
    done,
    line: (text) =>
      new Promise<void>((resolve, reject) => {
        if (stdout.split("\n").includes(text)) return resolve();
        waiters.push({ text, resolve });
        done.then(() => reject(new Error(`${file} exited before printing ${text}`)), reject);
      }),
  };
}
