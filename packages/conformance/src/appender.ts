/**
 * A writer in another process for the multi-process conformance tests. The child runs
 * `appendUntilKilled` with the runtime's own `openStore`; after every append returns it writes an
 * ack line to a ledger with a synchronous append, so what the ledger says was acknowledged is on
 * disk whatever happens to the child. The parent stops it with SIGKILL.
 */
import { spawn } from "node:child_process";
import { existsSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import type { Store } from "@sessiondb/core";

/** A running appender. */
export interface AppenderChild {
  /** SIGKILL the child and wait until it is gone. */
  stop(): Promise<void>;
}

/** Starts a child on the runtime under test that runs `appendUntilKilled(store, sessionId, ledger)`
 * on a store it opened at `path` with the same driver as the suite. */
export type ChildAppender = (args: {
  path: string;
  sessionId: string;
  ledger: string;
}) => Promise<AppenderChild>;

/** The child gives up after this long, so a parent that died leaves no writer behind. */
const APPENDER_LIFETIME_MS = 120_000;

/** The exact content of the `n`-th append: a test can tell a whole row from a torn one. */
export function appendedContent(sessionId: string, n: number): string {
  return `appender ${sessionId} n${n} ${"0123456789abcdef".repeat(16)} end${n}`;
}

/** While this file exists the appender appends nothing and keeps its store open, idle. */
const holdPath = (ledger: string) => `${ledger}.hold`;

/** The child's loop: append one message at a time and ack each one, until killed. While
 * `holdPath(ledger)` exists it waits between two appends (outside any transaction, its connection
 * open) and says so in the ledger with a "held" line. */
export function appendUntilKilled(store: Store, sessionId: string, ledger: string): void {
  store.createSession({ id: sessionId, source: "appender" });
  const fd = openSync(ledger, "a");
  writeSync(fd, "ready\n");
  const deadline = Date.now() + APPENDER_LIFETIME_MS;
  // A synchronous sleep on every runtime: the loop never returns to the event loop.
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let n = 0; Date.now() < deadline; n++) {
    if (existsSync(holdPath(ledger))) {
      writeSync(fd, "held\n");
      while (existsSync(holdPath(ledger)) && Date.now() < deadline) Atomics.wait(sleeper, 0, 0, 10);
    }
    const id = store.appendMessage(sessionId, { role: "user", content: appendedContent(sessionId, n) });
    writeSync(fd, `ack ${n} ${id}\n`);
  }
  store.close();
}

/** How many appends the ledger acknowledges so far (acks are written in order). */
export function ackedCount(ledger: string): number {
  if (!existsSync(ledger)) return 0;
  return readFileSync(ledger, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("ack ")).length;
}

/** Make the appender writing `ledger` hold (see `appendUntilKilled`) and wait until it does. */
export async function holdAppender(ledger: string, timeoutMs = 30_000): Promise<void> {
  writeFileSync(holdPath(ledger), "");
  const deadline = Date.now() + timeoutMs;
  while (!readFileSync(ledger, "utf8").includes("held\n")) {
    if (Date.now() > deadline) throw new Error(`the appender did not hold in ${timeoutMs} ms (${ledger})`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Wait until the ledger holds at least `count` acks. */
export async function waitForAcks(ledger: string, count: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (ackedCount(ledger) < count) {
    if (Date.now() > deadline)
      throw new Error(`the appender acknowledged fewer than ${count} appends in ${timeoutMs} ms (${ledger})`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A `ChildAppender` over node:child_process (Node and Bun), running `argv(args)`. */
export function childAppender(
  argv: (args: { path: string; sessionId: string; ledger: string }) => string[],
): ChildAppender {
  return async (args) => {
    const [command = "", ...rest] = argv(args);
    const child = spawn(command, rest, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const failed = exited.then(() => {
      throw new Error(`the appender exited early: ${stderr}`);
    });
    await Promise.race([waitForAcks(args.ledger, 1), failed]);
    failed.catch(() => {});
    return {
      async stop() {
        child.kill("SIGKILL");
        await exited;
      },
    };
  };
}
