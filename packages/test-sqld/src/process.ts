/**
 * Stopping a process for a test (SIGSTOP) and knowing that it has stopped. `kill` returning is
 * not enough for a process with several threads: the kernel stops the others only once the one
 * thread it woke for the signal gets to run, and on a busy machine the rest keep working
 * meanwhile — sqld answered 24 of 100 requests sent right after SIGSTOP with both cores busy.
 */
import { execFileSync } from "node:child_process";
import process from "node:process";

/**
 * SIGSTOP `pid` and return once every thread of it has stopped, or once it is gone (it exited
 * first: nothing of it runs either way). Linux only: it reads each thread's state ("T" when
 * stopped) from /proc/<pid>/task/<tid>/stat, through `cat`, as Deno lets a script read /proc
 * only with --allow-all.
 */
export function stopProcess(pid: number, timeoutMs = 10_000): void {
  try {
    process.kill(pid, "SIGSTOP");
  } catch {
    return; // Already gone (and reaped).
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = threadStates(pid);
    // None listed: the process is gone. Z or X: it is exiting, and will not run again.
    if (states.every((state) => state === "T") || states.some((state) => state === "Z" || state === "X")) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`pid ${pid}: thread states ${states.join("")} ${timeoutMs} ms after SIGSTOP`);
    }
  }
}

/** The state letter of each thread of `pid` (none once it is gone): the field after the
 * thread's name, which is in parentheses and may itself hold spaces or parentheses. */
function threadStates(pid: number): string[] {
  let stats: string;
  try {
    stats = execFileSync("sh", ["-c", 'cat /proc/"$1"/task/*/stat 2>/dev/null', "sh", String(pid)], {
      encoding: "utf8",
    });
  } catch (error) {
    stats = (error as { stdout?: string }).stdout ?? "";
  }
  return stats
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.charAt(line.lastIndexOf(")") + 2));
}
