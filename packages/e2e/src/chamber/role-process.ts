/**
 * One role as a real OS process: spawned on a runtime, optionally as an unprivileged user,
 * with its report file, its stdout/stderr in files, and the three ways to end it: the stop file,
 * SIGTERM (graceful close) and SIGKILL (the crash).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Runtime } from "./runtimes.js";

/** One line of a role's report. */
export interface RoleEvent {
  t: string;
  at: number;
  role: string;
  pid: number;
  [field: string]: unknown;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Run the process as this user (chmod episode): uses setpriv, which execs in place (same pid). */
export interface RunAs {
  user: string;
  group: string;
}

export class RoleProcess {
  readonly name: string;
  readonly role: string;
  readonly runtime: Runtime;
  readonly reportPath: string;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<Exit>;
  exit: Exit | undefined;
  /** Set when the harness killed it on purpose (kill -9): a non-zero exit is then expected. */
  killedOnPurpose = false;
  /** Set when the harness sent SIGTERM. */
  terminated = false;

  constructor(opts: {
    name: string;
    role: string;
    runtime: Runtime;
    dir: string;
    config: Record<string, unknown>;
    env?: Record<string, string>;
    runAs?: RunAs;
  }) {
    this.name = opts.name;
    this.role = opts.role;
    this.runtime = opts.runtime;
    this.reportPath = join(opts.dir, "reports", `${opts.name}.log`);
    const config = { ...opts.config, role: opts.role, name: opts.name, report: this.reportPath };
    const out = openSync(join(opts.dir, "logs", `${opts.name}.out`), "a");
    let command = opts.runtime.command;
    let args = opts.runtime.args;
    if (opts.runAs) {
      args = [
        `--reuid=${opts.runAs.user}`,
        `--regid=${opts.runAs.group}`,
        "--clear-groups",
        command,
        ...args,
      ];
      command = "setpriv";
    }
    this.child = spawn(command, args, {
      stdio: ["ignore", out, out],
      env: { ...process.env, ...opts.env, SESSIONDB_ROLE: JSON.stringify(config), NO_COLOR: "1" },
    });
    closeSync(out);
    if (this.child.pid === undefined) throw new Error(`could not start ${opts.name} (${command})`);
    this.pid = this.child.pid;
    this.exited = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  /** Every event reported so far (lines without their newline are not trusted yet). */
  events(): RoleEvent[] {
    if (!existsSync(this.reportPath)) return [];
    const text = readFileSync(this.reportPath, "utf8");
    const events: RoleEvent[] = [];
    for (const line of text.split("\n")) if (line.endsWith("}")) events.push(JSON.parse(line));
    return events;
  }

  /** Wait until `pred` holds for the report (or the process exits, or the time runs out). */
  async waitFor(
    pred: (events: RoleEvent[]) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<RoleEvent[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const events = this.events();
      if (pred(events)) return events;
      if (!this.alive)
        throw new Error(
          `${this.name} exited (${JSON.stringify(this.exit)}) before ${what}; see logs/${this.name}.out`,
        );
      if (Date.now() > deadline)
        throw new Error(`${this.name} did not reach "${what}" within ${timeoutMs} ms`);
      await sleep(20);
    }
  }

  /** kill -9. */
  kill9(): void {
    if (!this.alive) return;
    this.killedOnPurpose = true;
    process.kill(this.pid, "SIGKILL");
  }

  /** SIGTERM: the role closes its store and exits 0. */
  term(): void {
    if (!this.alive) return;
    this.terminated = true;
    process.kill(this.pid, "SIGTERM");
  }

  /** Wait for the exit, up to `timeoutMs`; undefined on timeout. */
  async waitExit(timeoutMs: number): Promise<Exit | undefined> {
    return Promise.race([this.exited, sleep(timeoutMs).then(() => undefined)]);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
