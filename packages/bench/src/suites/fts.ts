/**
 * FTS indexing. Throughput: each job runs in a fresh process of the same runtime (so its peak
 * RSS is its own) — the raw FTS5 'rebuild' of the store's two indexes through the raw binding
 * (the limit), `rebuildFts`, and `startFtsBackfill` + `backfillFts` to completion — interleaved,
 * no other writer. Writer: a second process appends one message at a time while the job runs;
 * its latencies before the job are the idle reference.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { Engine } from "../engine.js";
import { lastJson, runTimed, script, start } from "../spawn.js";
import { latency, median, sleep } from "../stats.js";
import type { SuiteContext } from "./context.js";

interface FtsJob {
  op: string;
  ms: number;
  rows: number;
  startedAt: number;
  endedAt: number;
  rssBeforeMiB: number;
  rssPeakMiB: number;
  rssExact: boolean;
  repeats: number;
}

const OPS = ["raw", "rebuild", "backfill"] as const;

function job(engine: Engine, ctx: SuiteContext, op: string): FtsJob {
  return lastJson<FtsJob>(runTimed(ctx.exec, script("proc/fts-op.js"), [engine.target, ctx.db, op]).stdout);
}

export function ftsThroughput(engine: Engine, ctx: SuiteContext): void {
  const runs: Record<string, FtsJob[]> = { raw: [], rebuild: [], backfill: [] };
  for (let i = 0; i < ctx.plan.ftsRuns; i++) {
    // Rotate the order each round: the first job of a round meets a colder page cache.
    for (let k = 0; k < OPS.length; k++) {
      const op = OPS[(i + k) % OPS.length] as string;
      runs[op]?.push(job(engine, ctx, op));
    }
  }
  const mb = ctx.bytes / 1e6;
  const rate = (op: string) => median((runs[op] ?? []).map((r) => r.rows / (r.ms / 1000)));
  const rss = (op: string) => Math.max(...(runs[op] ?? []).map((r) => r.rssPeakMiB));
  const seconds = (op: string) => median((runs[op] ?? []).map((r) => r.ms / 1000));
  for (const op of OPS) {
    ctx.metric(`fts.${op}.rows`, rate(op));
    ctx.metric(`fts.${op}.mb`, mb / seconds(op));
    ctx.metric(`rss.${op}`, rss(op));
    ctx.note(`fts.${op}.seconds`, (runs[op] ?? []).map((r) => (r.ms / 1000).toFixed(2)).join(", "));
  }
  // Ratios pair each job with the raw rebuild of the same round (adjacent in time), then take
  // the median over rounds: a burst of load from elsewhere spoils one round, not the figure.
  const paired = (op: string) =>
    median(
      (runs[op] ?? []).map((r, i) => r.rows / r.ms / ((runs.raw?.[i]?.rows ?? 0) / (runs.raw?.[i]?.ms ?? 1))),
    );
  ctx.metric("fts.rebuild.ratio", paired("rebuild"));
  ctx.metric("fts.backfill.ratio", paired("backfill"));
  ctx.metric("rss.rebuild.ratio", rss("rebuild") / rss("raw"));
  ctx.metric("rss.backfill.ratio", rss("backfill") / rss("raw"));
  if (!runs.raw?.[0]?.rssExact)
    ctx.note("rss", "current RSS at exit, not a true peak (no /proc/self/status)");
}

export async function writerUnderLoad(engine: Engine, ctx: SuiteContext): Promise<void> {
  for (const op of ["backfill", "rebuild"] as const) {
    const stopFile = join(ctx.work, `writer-stop-${process.pid}-${op}`);
    rmSync(stopFile, { force: true });
    const writer = start(ctx.exec, script("proc/writer.js"), [
      engine.target,
      ctx.db,
      stopFile,
      String(ctx.plan.writerPauseMs),
    ]);
    let result: FtsJob;
    try {
      await writer.line("ready");
      await sleep(ctx.plan.writerIdleMs);
      const jobProc = start(ctx.exec, script("proc/fts-op.js"), [
        engine.target,
        ctx.db,
        op,
        String(ctx.plan.writerMinJobMs),
      ]);
      result = lastJson<FtsJob>(await jobProc.done);
      await sleep(Math.min(300, ctx.plan.writerIdleMs)); // a little tail, then stop
    } finally {
      writeFileSync(stopFile, "stop");
    }
    const out = lastJson<{ samples: Array<[number, number]>; errors: string[] }>(await writer.done);
    rmSync(stopFile, { force: true });
    const idle = out.samples.filter(([at]) => at < result.startedAt).map(([, ms]) => ms);
    // An append that started before the job ended may have waited for it: it belongs to the job.
    const during = out.samples
      .filter(([at]) => at >= result.startedAt && at <= result.endedAt)
      .map(([, ms]) => ms);
    if (during.length === 0)
      throw new Error(`no writer append overlapped the ${op} job (${result.endedAt - result.startedAt} ms)`);
    const d = latency(during);
    ctx.metric(`writer.${op}.p50`, d.p50);
    ctx.metric(`writer.${op}.p99`, d.p99);
    if (op === "backfill") {
      const i = latency(idle);
      ctx.metric("writer.idle.p50", i.p50);
      ctx.metric("writer.idle.p99", i.p99);
    }
    const span = (result.endedAt - result.startedAt) / 1000;
    ctx.note(
      `writer.${op}`,
      `${during.length} appends during ${result.repeats}× ${op} in ${span.toFixed(1)} s, max ${Math.max(...during).toFixed(1)} ms, ${out.errors.length} errors${out.errors[0] ? `: ${out.errors[0]}` : ""}`,
    );
  }
}
