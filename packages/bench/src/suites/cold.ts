/**
 * Cold open. In-process (tinybench): open → first query → close of a current store, against
 * the raw binding doing open + the same query + close on the same file (a real close on every
 * binding: bun:sqlite's statement is finalized first, or its close would wait for the garbage
 * collector). Whole-process: a script that loads the adapter, opens the store and counts
 * messages, against the same runtime running a raw-binding script — spawned alternately so drift
 * hits both alike.
 */
import { Bench } from "tinybench";
import type { Engine } from "../engine.js";
import { lastJson, runTimed, script } from "../spawn.js";
import { median } from "../stats.js";
import type { SuiteContext } from "./context.js";

export async function coldOpenInProcess(engine: Engine, ctx: SuiteContext): Promise<void> {
  const session = ctx.sessionId;
  const sql = "SELECT count(*) AS n FROM messages WHERE session_id = ?";
  const tasks = {
    store: () => {
      const store = engine.openStore(ctx.db);
      store.messageCount(session);
      store.close();
    },
    raw: () => {
      const db = engine.openRaw(ctx.db);
      const statement = db.prepare(sql);
      statement.get(session);
      // The store's close is a real close (the file descriptors and the -shm mapping let go):
      // so is the reference's, on bun:sqlite too (see RawStatement.finalize).
      statement.finalize?.();
      db.close();
    },
  };
  await storeVsRawInProcess(ctx, "cold.inproc", tasks);
}

/**
 * Time `tasks.store` against `tasks.raw` with tinybench, `ctx.plan.rounds` rounds that alternate
 * the order (a machine slowing down mid-run favours neither side), and record `<prefix>.store`,
 * `.raw` (median p50s) and `.ratio` (the median of each round's ratio: two measurements taken
 * back to back). Either task may return a promise: tinybench awaits it.
 */
export async function storeVsRawInProcess(
  ctx: SuiteContext,
  prefix: string,
  tasks: { store: () => unknown; raw: () => unknown },
): Promise<void> {
  const p50 = { store: [] as number[], raw: [] as number[] };
  for (let round = 0; round < ctx.plan.rounds; round++) {
    const bench = new Bench({
      time: ctx.plan.benchTimeMs,
      iterations: ctx.plan.benchIterations,
      warmup: ctx.plan.benchTimeMs > 0,
      warmupIterations: 10,
    });
    const order = round % 2 === 0 ? (["store", "raw"] as const) : (["raw", "store"] as const);
    for (const name of order) bench.add(name, tasks[name]);
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state !== "completed") throw new Error(`tinybench task ${task.name}: ${result.state}`);
      p50[task.name as "store" | "raw"].push(result.latency.p50);
    }
  }
  ctx.metric(`${prefix}.store`, median(p50.store));
  ctx.metric(`${prefix}.raw`, median(p50.raw));
  ctx.metric(`${prefix}.ratio`, median(p50.store.map((s, i) => s / (p50.raw[i] ?? Number.NaN))));
}

/** What one spawned open-store/open-raw script printed, with its wall time. */
interface ProcessRun {
  ms: number;
  n: number;
  loadMs: number;
  openMs: number;
  readMs: number;
  /** The child's own CPU time when it printed (user + system, all threads). */
  cpuMs: number;
}

/** Spawn the store and raw scripts `spawns` times each, alternating which goes first (drift
 * hits both alike); every run must read (or write) `expected` rows. Both sides use the corpus
 * store unless `files` gives each its own (a write must not land on the other side's file). */
export function spawnBothSides(
  engine: Engine,
  ctx: SuiteContext,
  extra: readonly string[],
  expected: number,
  files: { store: string; raw: string } = { store: ctx.db, raw: ctx.db },
): { store: ProcessRun[]; raw: ProcessRun[] } {
  const runs = { store: [] as ProcessRun[], raw: [] as ProcessRun[] };
  for (let i = 0; i < ctx.plan.spawns; i++) {
    const order = i % 2 === 0 ? (["store", "raw"] as const) : (["raw", "store"] as const);
    for (const side of order) {
      const { ms, stdout } = runTimed(ctx.exec, script(`proc/open-${side}.js`), [
        engine.target,
        files[side],
        ...extra,
      ]);
      const run = { ms, ...(lastJson(stdout) as Omit<ProcessRun, "ms">) };
      if (run.n !== expected) throw new Error(`open-${side} read ${run.n} rows, expected ${expected}`);
      runs[side].push(run);
    }
  }
  return runs;
}

const medianOf = (runs: ProcessRun[], key: keyof ProcessRun) => median(runs.map((r) => r[key]));

/** The whole-process figures of `prefix` (cold, resume, append): wall times and their ratio, and
 * the CPU time each side's process used (its ratio, and the store's added milliseconds: on a
 * runtime whose binding is built in the raw script starts in a few ms, so the added time is the
 * figure a ratio would hide; wall time also counts the wait for the other core). */
export function processMetrics(
  ctx: SuiteContext,
  prefix: string,
  runs: { store: ProcessRun[]; raw: ProcessRun[] },
) {
  const { store, raw } = runs;
  ctx.metric(`${prefix}.process.store`, medianOf(store, "ms"));
  ctx.metric(`${prefix}.process.raw`, medianOf(raw, "ms"));
  ctx.metric(`${prefix}.process.ratio`, medianOf(store, "ms") / medianOf(raw, "ms"));
  ctx.metric(`${prefix}.process.cpu.ratio`, medianOf(store, "cpuMs") / medianOf(raw, "cpuMs"));
  ctx.metric(`${prefix}.process.cpu.added`, medianOf(store, "cpuMs") - medianOf(raw, "cpuMs"));
}

/** Whole-process cold open, and module load alone (the adapter's import against the binding's,
 * timed inside the same processes). */
export function coldOpenProcess(engine: Engine, ctx: SuiteContext): void {
  const { store, raw } = spawnBothSides(engine, ctx, [], ctx.messages);
  processMetrics(ctx, "cold", { store, raw });
  ctx.metric("load.store", medianOf(store, "loadMs"));
  ctx.metric("load.raw", medianOf(raw, "loadMs"));
  ctx.note("cold.process.spawns", String(ctx.plan.spawns));
}
