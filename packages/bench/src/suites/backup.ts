/**
 * Backups of a live store. Throughput: `store.backup` (the driver's method: SQLite's online
 * backup API where the binding has it, else VACUUM INTO) against VACUUM INTO through the raw
 * binding, each in a fresh process. Writer: a second process appends one message at a time
 * while backups run back to back; its latencies before the first backup are the idle reference.
 */
import { join } from "node:path";
import process from "node:process";
import type { Engine } from "../engine.js";
import { lastJson, runTimed, script, start } from "../spawn.js";
import type { SuiteContext } from "./context.js";
import { describeWriter, writerDuring } from "./writer-during.js";

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

  const run = await writerDuring(engine, ctx, "backup", async () => {
    // At least 200 ms even in a smoke run, so a few appends overlap a backup of a tiny store.
    const minMs = Math.max(ctx.plan.writerMinJobMs, 200);
    const proc = start(ctx.exec, script("proc/backup-op.js"), backupJob(engine, ctx, "store", minMs));
    return lastJson<BackupJob>(await proc.done);
  });
  ctx.metric("writer.backup.idle.p99", run.idle.p99);
  ctx.metric("writer.backup.p50", run.during.p50);
  ctx.metric("writer.backup.p99", run.during.p99);
  ctx.note("writer.backup", describeWriter(run, `${run.job.repeats}× backup (${run.job.method})`));
}
