/**
 * Prune and vacuum, the upkeep that destroys data, and the import that writes it back, each with
 * a writer appending next to it. All three run on a copy of the corpus of their own (made here,
 * deleted afterwards), so no other suite sees a pruned store and the figures do not depend on
 * what ran before.
 * Prune: a fresh process deletes the oldest sessions that hold PRUNE_SHARE of the messages with
 * `store.deleteSessions`, as `sessiondb prune --older-than` does (on a large store for at most
 * `writerMaxJobMs`). Vacuum: right after it, `store.vacuum()` gives the freed pages
 * back in paced steps (the corpus is created with auto_vacuum=INCREMENTAL; a store without it
 * would do nothing, so the suite fails rather than report a writer next to no job). Import:
 * last, a fresh process writes the pruned sessions back with `store.importSessions`, as
 * `sessiondb import` does, reading them one at a time from the untouched corpus (on a large
 * store for at most `writerMaxJobMs`).
 */
import { copyFileSync, rmSync } from "node:fs";
import type { Engine } from "../engine.js";
import { SIDE_FILES } from "../engine.js";
import { lastJson, script, start } from "../spawn.js";
import type { SuiteContext } from "./context.js";
import { describeWriter, type WriterDuring, writerDuring } from "./writer-during.js";

/** The share of the store's messages a prune deletes: a retention policy's usual bite. */
const PRUNE_SHARE = 0.1;

interface PruneJob {
  ms: number;
  startedAt: number;
  endedAt: number;
  total: number;
  sessions: number;
  messages: number;
  largest: number;
  steps: number;
  longestStep: number;
  stopped: boolean;
}

interface VacuumJob {
  ms: number;
  startedAt: number;
  endedAt: number;
  steps: number;
  stopped: boolean;
  method: string;
  note?: string;
  bytesBefore: number;
  freeBefore: number;
  bytesAfter: number;
  freeAfter: number;
}

interface ImportJob {
  ms: number;
  startedAt: number;
  endedAt: number;
  chosen: number;
  sessions: number;
  messages: number;
  skipped: number;
  failed: number;
  steps: number;
  longestStep: number;
  stopped: boolean;
}

const MiB = 1024 * 1024;

function job<J>(engine: Engine, ctx: SuiteContext, args: string[]): () => Promise<J> {
  return async () =>
    lastJson<J>(await start(ctx.exec, script("proc/prune-op.js"), [engine.target, ctx.db, ...args]).done);
}

/** The writer figures every job of this suite reports. */
function writerMetrics(
  ctx: SuiteContext,
  op: string,
  run: WriterDuring<{ startedAt: number; endedAt: number }>,
) {
  ctx.metric(`writer.${op}.idle.p99`, run.idle.p99);
  ctx.metric(`writer.${op}.p50`, run.during.p50);
  ctx.metric(`writer.${op}.p99`, run.during.p99);
  ctx.metric(`writer.${op}.max`, run.maxMs);
  ctx.metric(`writer.${op}.ratio`, run.during.p99 / run.idle.p99);
}

export async function pruneSuite(engine: Engine, ctx: SuiteContext): Promise<void> {
  const copy = ctx.db.replace(/\.db$/, "-prune.db");
  const clean = () => {
    for (const suffix of SIDE_FILES) rmSync(copy + suffix, { force: true });
  };
  clean();
  copyFileSync(ctx.corpus, copy);
  try {
    engine.openStore(copy).close(); // brought current by this runtime, as the runner does
    const own = { ...ctx, db: copy };
    const max = ctx.plan.writerMaxJobMs === undefined ? [] : [String(ctx.plan.writerMaxJobMs)];

    const prune = await writerDuring(
      engine,
      own,
      "prune",
      job<PruneJob>(engine, own, ["prune", String(PRUNE_SHARE), String(ctx.plan.pruneMinMs), ...max]),
    );
    const p = prune.job;
    writerMetrics(ctx, "prune", prune);
    ctx.metric("prune.ms", p.ms);
    ctx.metric("prune.step.max", p.longestStep);
    const bound = p.stopped ? `, stopped after ${ctx.plan.writerMaxJobMs} ms` : "";
    ctx.note(
      "prune",
      `${p.sessions} sessions, ${p.messages} of ${p.total} messages (largest session ${p.largest}) in ${p.steps} steps${bound}`,
    );
    ctx.note("writer.prune", describeWriter(prune, `prune of ${p.sessions} sessions`));

    const vacuum = await writerDuring(engine, own, "vacuum", job<VacuumJob>(engine, own, ["vacuum", ...max]));
    const v = vacuum.job;
    if (v.method !== "incremental")
      throw new Error(`vacuum did nothing (method ${v.method}): ${v.note ?? "no note"}`);
    writerMetrics(ctx, "vacuum", vacuum);
    ctx.metric("vacuum.ms", v.ms);
    ctx.metric("vacuum.freed", (v.bytesBefore - v.bytesAfter) / MiB);
    ctx.note(
      "vacuum",
      `${(v.bytesBefore / MiB).toFixed(1)} → ${(v.bytesAfter / MiB).toFixed(1)} MiB (${(v.freeBefore / MiB).toFixed(1)} MiB free before, ${(v.freeAfter / MiB).toFixed(1)} after) in ${v.steps} steps${v.stopped ? `, stopped after ${ctx.plan.writerMaxJobMs} ms` : ""}`,
    );
    ctx.note("writer.vacuum", describeWriter(vacuum, `vacuum (${v.steps} steps)`));

    const imported = await writerDuring(
      engine,
      own,
      "import",
      job<ImportJob>(engine, own, [
        "import",
        ctx.corpus,
        String(PRUNE_SHARE),
        String(ctx.plan.pruneMinMs),
        ...max,
      ]),
    );
    const i = imported.job;
    if (i.failed > 0) throw new Error(`the import refused ${i.failed} of the sessions it read back`);
    writerMetrics(ctx, "import", imported);
    ctx.metric("import.ms", i.ms);
    ctx.metric("import.step.max", i.longestStep);
    ctx.note(
      "import",
      `${i.sessions} sessions, ${i.messages} messages written back (${i.skipped} still there, skipped) in ${i.steps} steps${i.stopped ? `, stopped after ${ctx.plan.writerMaxJobMs} ms` : ""}`,
    );
    ctx.note("writer.import", describeWriter(imported, `import of ${i.sessions} sessions`));
  } finally {
    clean();
  }
}
