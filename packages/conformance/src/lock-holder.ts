/**
 * A lock holder in a child process for the driver contract's BUSY tests, over node:child_process
 * (Node and Bun; Deno's test spawns with Deno.Command, which needs no --allow-env). The child
 * prints "locked" once it holds the lock and rolls back and exits when its stdin ends.
 */
import { spawn } from "node:child_process";
import type { LockHolder } from "./driver-harness.js";

/** A `LockHolder` running the command `argv(path, begin)` returns ([executable, ...args]). */
export function childLockHolder(argv: (path: string, begin: string) => string[]): LockHolder {
  return async (path, begin) => {
    const [command = "", ...args] = argv(path, begin);
    const child = spawn(command, args, { stdio: "pipe" });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk) => String(chunk).includes("locked") && resolve());
      child.on("exit", (code) => reject(new Error(`lock holder exited (${code}): ${stderr}`)));
    });
    return async () => {
      child.stdin.end();
      await exited;
    };
  };
}
