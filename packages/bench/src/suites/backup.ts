/**
 * Backups of a live store. Throughput: `store.backup` (the driver's method: SQLite's online
 * backup API where the binding has it, else VACUUM INTO) against VACUUM INTO through the raw
 * binding, each in a fresh process. Writer: a second process appends one message at a time
 * while backups run back to back; its latencies before the first backup are the idle reference.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { Engine } from "../engine.js";
import { lastJson, runTimed, script, start } from "../spawn.js";
import { latency, sleep } from "../stats.js";
import type { SuiteContext } from "./context.js";

interface BackupJob {
  method: string;
  ms: number;
  repeats: number;
  bytes: number;
  startedAt: number;
  endedAt: number;
}

function backupJob(engine: Engine, ctx: SuiteContext, op: "store" | "vacuum", minMs = 0): string[] {
  const dest = join(ctx.work, `backup-${process.pid}-${op}.db`);
  return [engine.target, ctx.db, op, dest, String(minMs)];
}

export async function backupSuite(engine: Engine, ctx: SuiteContext): Promise<void> {
  for (const op of ["store", "vacuum"] as const) {
    const job = lastJson<BackupJob>(
      runTimed(ctx.exec, script("proc/backup-op.js"), backupJob(engine, ctx, op)).stdout,
    );
    ctx.metric(`backup.${op}.ms`, job.ms);
    ctx.metric(`backup.${op}.mb`, job.bytes / 1e6 / (job.ms / 1000));
    if (op === "store") ctx.note("backup.method", job.method);
  }

  const stopFile = join(ctx.work, `writer-stop-${process.pid}-backup`);
  rmSync(stopFile, { force: true });
  const writer = start(ctx.exec, script("proc/writer.js"), [
    engine.target,
    ctx.db,
    stopFile,
    String(ctx.plan.writerPauseMs),
  ]);
  let job: BackupJob;
  try {
    await writer.line("ready");
    await sleep(ctx.plan.writerIdleMs);
    // At least 200 ms even in a smoke run, so a few appends overlap a backup of a tiny store.
    const minMs = Math.max(ctx.plan.writerMinJobMs, 200);
    const proc = start(ctx.exec, script("proc/backup-op.js"), backupJob(engine, ctx, "store", minMs));
    job = lastJson<BackupJob>(await proc.done);
    await sleep(Math.min(300, ctx.plan.writerIdleMs));
  } finally {
    writeFileSync(stopFile, "stop");
  }
  const out = lastJson<{ samples: Array<[number, number]>; errors: string[] }>(await writer.done);
  rmSync(stopFile, { force: true });
  const idle = out.samples.filter(([at]) => at < job.startedAt).map(([, ms]) => ms);
  const during = out.samples.filter(([at]) => at >= job.startedAt && at <= job.endedAt).map(([, ms]) => ms);
  if (during.length === 0)
    throw new Error(`no writer append overlapped the backups (${job.endedAt - job.startedAt} ms)`);
  const d = latency(during);
  const i = latency(idle);
  ctx.metric("writer.backup.idle.p99", i.p99);
  ctx.metric("writer.backup.p50", d.p50);
  ctx.metric("writer.backup.p99", d.p99);
  ctx.note(
    "writer.backup",
    `${during.length} appends during ${job.repeats}× backup (${job.method}) in ${((job.endedAt - job.startedAt) / 1000).toFixed(1)} s, max ${Math.max(...during).toFixed(1)} ms, ${out.errors.length} errors${out.errors[0] ? `: ${out.errors[0]}` : ""}`,
  );
}
