/**
 * One episode in one arm: its own directory and store, its seeded choices, the roles it starts,
 * the monitor, and the failures it collects. Every failure message carries the seed, the arm,
 * the episode and the directory (kept when the episode fails), and how to replay it.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Monitor } from "./monitor.js";
import { MODULES, REPO_ROOT } from "./paths.js";
import { type RoleEvent, RoleProcess, type RunAs, sleep } from "./role-process.js";
import { availableRuntimes, type Runtime, type RuntimeId } from "./runtimes.js";
import { Rng } from "./seed.js";

/** The journal arms of the chamber, and "server": a libSQL server owns the journal (the fleet). */
export type Arm = "wal" | "delete" | "server";

/** The SQLite version the DELETE arm pins: vulnerable to the WAL-reset bug, so the REAL journal
 * policy keeps the store in DELETE mode (spec §7). */
export const PINNED_VULNERABLE_SQLITE = "3.50.4";

/** Multiplies episode durations: SESSIONDB_CHAMBER_SOAK=10 for a long soak. */
export const SOAK = Math.max(1, Number(process.env.SESSIONDB_CHAMBER_SOAK ?? "1") || 1);

export interface CheckOptions {
  /** Acceptable ftsStatus().state values (default: ready or backfilling). */
  expectFts?: string[];
  /** Per-session counts observed earlier (a previous check), which must not go down. */
  minCounts?: Record<string, number>;
  searchSample?: number;
  runtime?: RuntimeId;
  label?: string;
  /** Writers are still running: skip the counter comparisons that need one snapshot. */
  live?: boolean;
  /** Record the problems as notes instead of failures (a look at a store known to be damaged). */
  observe?: boolean;
  /** Check this store instead of the episode's (a restored backup, a repaired store). */
  store?: string;
  /** Only the appends acknowledged before this ledger cut are required (a backup: `reportCut`). */
  cut?: Record<string, number>;
  /** Only these acknowledged appends are required (a JSON file of tokens: a repaired store). */
  expectTokens?: string;
  /** More checker config (the fleet: the server's URL, the error codes whose outcome is unknown). */
  params?: Record<string, unknown>;
}

export interface Verdict {
  ok: boolean;
  problems: Array<{ kind: string; detail: string }>;
  stats: Record<string, unknown>;
}

export interface SpawnOptions {
  runAs?: RunAs;
  /** Role names are unique per episode: default `<role>-<n>`. */
  name?: string;
}

/** Error codes an episode tolerates in `fail`/`error`/`open_error` events (typed ones only): a
 * stable `code`, or an engine's extended code. */
export interface Tolerance {
  codes: string[];
}

export class Episode {
  readonly name: string;
  readonly arm: Arm;
  readonly seed: number;
  readonly master: number;
  readonly rng: Rng;
  readonly dir: string;
  readonly store: string;
  readonly reportsDir: string;
  readonly stopFile: string;
  readonly roles: RoleProcess[] = [];
  readonly failures: string[] = [];
  readonly notes: string[] = [];
  readonly verdicts: Verdict[] = [];
  readonly monitor: Monitor;
  tolerance: Tolerance = { codes: [] };
  #counter = 0;
  #tags = 0;

  constructor(name: string, arm: Arm, master: number, seed: number) {
    this.name = name;
    this.arm = arm;
    this.master = master;
    this.seed = seed;
    this.rng = new Rng(seed);
    this.dir = mkdtempSync(join(tmpdir(), `sessiondb-chamber-${arm}-${name}-`));
    // Roles may run as an unprivileged user (chmod episode): the directory must let them in.
    chmodSync(this.dir, 0o777);
    for (const sub of ["reports", "logs"]) {
      mkdirSync(join(this.dir, sub));
      chmodSync(join(this.dir, sub), 0o777);
    }
    this.store = join(this.dir, "state.db");
    this.reportsDir = join(this.dir, "reports");
    this.stopFile = join(this.dir, "stop");
    this.monitor = new Monitor(this.store, () => this.roles);
  }

  /** "[seed=… arm=… episode=…]" — on every failure line. */
  get tag(): string {
    return `[chamber seed=${this.master} arm=${this.arm} episode=${this.name} episodeSeed=${this.seed}]`;
  }

  fail(message: string): void {
    this.failures.push(`${this.tag} ${message}`);
  }

  note(message: string): void {
    this.notes.push(message);
  }

  /** Give the store directory to an unprivileged user (chmod episode). */
  chown(uid: number, gid: number): void {
    chownSync(this.dir, uid, gid);
  }

  /** A seeded runtime, optionally other than `exclude`. */
  pickRuntime(exclude: RuntimeId[] = []): Runtime {
    const all = availableRuntimes();
    if (all.length === 0)
      throw new Error("no runtime is available for the chamber (build the packages first)");
    const choices = all.filter((r) => !exclude.includes(r.id));
    return this.rng.pick(choices.length > 0 ? choices : all);
  }

  /** `n` seeded runtimes, as distinct as the available ones allow (mixes runtimes per episode). */
  pickRuntimes(n: number): Runtime[] {
    const all = availableRuntimes();
    const order = [...all];
    for (let i = order.length - 1; i > 0; i--) {
      const j = this.rng.int(0, i);
      [order[i], order[j]] = [order[j] as Runtime, order[i] as Runtime];
    }
    return Array.from({ length: n }, (_, i) => order[i % order.length] as Runtime);
  }

  /** Start a role on `runtime` with `params`; every role gets the store, the arm's options and the seed. */
  spawn(
    role: string,
    runtime: Runtime,
    params: Record<string, unknown> = {},
    opts: SpawnOptions = {},
  ): RoleProcess {
    const name = opts.name ?? `${role}-${++this.#counter}-${runtime.id}`;
    const config: Record<string, unknown> = {
      store: this.store,
      stopFile: this.stopFile,
      modules: MODULES,
      repoRoot: REPO_ROOT,
      seed: this.seed,
      // A server's journal is its own: no arm for the roles to check.
      arm: this.arm === "server" ? undefined : this.arm,
      driver: runtime.driver,
      tag: String(this.#tags++),
      ...(this.arm === "delete" ? { sqliteVersion: PINNED_VULNERABLE_SQLITE } : {}),
      ...params,
    };
    const env: Record<string, string> = {
      DENO_DIR: join(tmpdir(), "sessiondb-chamber-deno-cache"),
      DENO_NO_UPDATE_CHECK: "1",
    };
    const proc = new RoleProcess({ name, role, runtime, dir: this.dir, config, env, runAs: opts.runAs });
    this.roles.push(proc);
    return proc;
  }

  /** Writers' report paths (readers search for what they acknowledged). */
  writerReports(): string[] {
    return this.roles.filter((r) => r.role === "writer").map((r) => r.reportPath);
  }

  /**
   * Touch the stop file and wait for every live role; kill -9 the ones that do not stop (a
   * failure, or only a note where the store is damaged on purpose: `late: "note"`).
   */
  async stopAll(timeoutMs = 30_000, late: "fail" | "note" = "fail"): Promise<void> {
    writeFileSync(this.stopFile, "stop\n");
    const live = this.roles.filter((r) => r.alive);
    const exits = await Promise.all(live.map((r) => r.waitExit(timeoutMs)));
    live.forEach((r, i) => {
      if (exits[i] === undefined) {
        const message = `${r.name} did not stop within ${timeoutMs} ms of the stop file; killed`;
        if (late === "fail") this.fail(message);
        else this.note(message);
        r.kill9();
      }
    });
    await Promise.all(live.map((r) => r.exited));
    rmSync(this.stopFile, { force: true });
  }

  /** kill -9 every live role at once. */
  async killAll(): Promise<void> {
    const live = this.roles.filter((r) => r.alive);
    for (const r of live) r.kill9();
    await Promise.all(live.map((r) => r.exited));
  }

  /** Run the checker role (read-only, short-lived) on a seeded runtime; failures are recorded. */
  async check(opts: CheckOptions = {}): Promise<Verdict> {
    const runtime = opts.runtime
      ? (availableRuntimes().find((r) => r.id === opts.runtime) ?? this.pickRuntime())
      : this.pickRuntime();
    const label = opts.label ?? `check${this.verdicts.length + 1}`;
    const out = join(this.dir, `${label}.verdict.json`);
    const proc = this.spawn(
      "checker",
      runtime,
      {
        reportsDir: this.reportsDir,
        out,
        expectFts: opts.expectFts ?? ["ready", "backfilling"],
        minCounts: opts.minCounts,
        searchSample: opts.searchSample ?? 40,
        live: opts.live === true,
        cut: opts.cut,
        expectTokens: opts.expectTokens,
        ...(opts.store ? { store: opts.store } : {}),
        ...opts.params,
        stopFile: undefined,
      },
      { name: `${label}-${runtime.id}` },
    );
    const exit = await proc.waitExit(180_000);
    if (!exit) {
      proc.kill9();
      this.fail(`${label} (checker on ${runtime.id}) did not finish in 180 s`);
      return { ok: false, problems: [], stats: {} };
    }
    let verdict: Verdict;
    try {
      verdict = JSON.parse(readFileSync(out, "utf8"));
    } catch {
      const crash = proc.events().find((e) => e.t === "crash");
      this.fail(`${label} (checker on ${runtime.id}) produced no verdict: ${JSON.stringify(crash ?? exit)}`);
      return { ok: false, problems: [], stats: {} };
    }
    this.verdicts.push(verdict);
    if (opts.observe) return verdict;
    for (const p of verdict.problems.slice(0, 25))
      this.fail(`${label} on ${runtime.id}: ${p.kind}: ${p.detail}`);
    if (verdict.problems.length > 25)
      this.fail(`${label}: … and ${verdict.problems.length - 25} more problems (see ${out})`);
    return verdict;
  }

  /** All events of all roles named like `prefix`. */
  events(filter: (r: RoleProcess) => boolean = () => true): Array<RoleEvent & { proc: RoleProcess }> {
    return this.roles.filter(filter).flatMap((proc) => proc.events().map((e) => ({ ...e, proc })));
  }

  /** Kill whatever is still running and remove the directory unless the episode failed. */
  async cleanup(keep: boolean): Promise<void> {
    this.monitor.stop();
    await this.killAll();
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }
}

export { sleep };
