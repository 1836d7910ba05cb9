/**
 * FTS indexing. Throughput: each job runs in a fresh process of the same runtime (so its peak
 * RSS is its own) — the raw FTS5 'rebuild' of the store's two indexes through the raw binding
 * (the limit), `rebuildFts`, and `startFtsBackfill` + `backfillFts` to completion — interleaved,
 * no other writer. Writer: a second process appends one message at a time while the job runs;
 * its latencies before the job are the idle reference.
 */
import type { Engine } from "../engine.js";
import { lastJson, runTimed, script, start } from "../spawn.js";
import { median } from "../stats.js";
import type { SuiteContext } from "./context.js";
import { describeWriter, writerDuring } from "./writer-during.js";

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
  /** Stopped at the time bound before the end (a rebuild or backfill on a large store). */
  stopped?: boolean;
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
  for (const op of ["backfill", "rebuild", "optimize"] as const) {
    const run = await writerDuring(engine, ctx, op, async () => {
      const proc = start(ctx.exec, script("proc/fts-op.js"), [
        engine.target,
        ctx.db,
        op,
        String(ctx.plan.writerMinJobMs),
        // A large store: the writer's latencies over the first part of a rebuild or backfill.
        ...(ctx.plan.writerMaxJobMs !== undefined && op !== "optimize"
          ? [String(ctx.plan.writerMaxJobMs)]
          : []),
      ]);
      return lastJson<FtsJob>(await proc.done);
    });
    ctx.metric(`writer.${op}.p50`, run.during.p50);
    ctx.metric(`writer.${op}.p99`, run.during.p99);
    if (op === "backfill") {
      ctx.metric("writer.idle.p50", run.idle.p50);
      ctx.metric("writer.idle.p99", run.idle.p99);
    }
    const what = run.job.stopped ? `${op} (stopped after ${ctx.plan.writerMaxJobMs} ms)` : op;
    ctx.note(`writer.${op}`, describeWriter(run, `${run.job.repeats}× ${what}`));
  }
}
