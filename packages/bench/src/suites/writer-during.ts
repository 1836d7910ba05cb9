/**
 * A writer process appending one message at a time while a maintenance job runs in another
 * process: the shared harness of the "writer under load" and backup suites. Appends that ended
 * before the job started are the idle reference; an append that overlapped the job (started while
 * it ran, or was still running when it started: one the job's lock held up) belongs to it.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { Engine } from "../engine.js";
import { lastJson, script, start } from "../spawn.js";
import { type Latency, latency, sleep } from "../stats.js";
import type { SuiteContext } from "./context.js";

/** When the job ran, in the writer's clock (both processes use wall-clock milliseconds). */
export interface JobSpan {
  startedAt: number;
  endedAt: number;
}

/** The writer's latencies around one job. */
export interface WriterDuring<J extends JobSpan> {
  job: J;
  idle: Latency;
  during: Latency;
  /** Appends during the job, and the slowest. */
  count: number;
  maxMs: number;
  errors: string[];
}

/** Start the writer, let it run idle, run `runJob`, let a short tail pass, stop the writer. */
export async function writerDuring<J extends JobSpan>(
  engine: Engine,
  ctx: SuiteContext,
  label: string,
  runJob: () => Promise<J>,
): Promise<WriterDuring<J>> {
  const stopFile = join(ctx.work, `writer-stop-${process.pid}-${label}`);
  rmSync(stopFile, { force: true });
  const writer = start(ctx.exec, script("proc/writer.js"), [
    engine.target,
    ctx.db,
    stopFile,
    String(ctx.plan.writerPauseMs),
  ]);
  let job: J;
  try {
    await writer.line("ready");
    await sleep(ctx.plan.writerIdleMs);
    job = await runJob();
    await sleep(Math.min(300, ctx.plan.writerIdleMs)); // a little tail, then stop
  } finally {
    writeFileSync(stopFile, "stop");
  }
  const out = lastJson<{ samples: Array<[number, number]>; errors: string[] }>(await writer.done);
  rmSync(stopFile, { force: true });
  const idle = out.samples.filter(([at, ms]) => at + ms < job.startedAt).map(([, ms]) => ms);
  // A short job on a loaded machine (a smoke run's 50 ms vacuum beside CI) may see no append
  // start inside it, but the one it held up was in flight when it started.
  const during = out.samples
    .filter(([at, ms]) => at <= job.endedAt && at + ms >= job.startedAt)
    .map(([, ms]) => ms);
  if (during.length === 0)
    throw new Error(`no writer append overlapped the ${label} job (${job.endedAt - job.startedAt} ms)`);
  return {
    job,
    idle: latency(idle),
    during: latency(during),
    count: during.length,
    maxMs: Math.max(...during),
    errors: out.errors,
  };
}

/** The note line every writer suite prints. */
export function describeWriter(run: WriterDuring<JobSpan>, what: string): string {
  const span = (run.job.endedAt - run.job.startedAt) / 1000;
  const first = run.errors[0] ? `: ${run.errors[0]}` : "";
  return `${run.count} appends during ${what} in ${span.toFixed(1)} s, max ${run.maxMs.toFixed(1)} ms, ${run.errors.length} errors${first}`;
}
