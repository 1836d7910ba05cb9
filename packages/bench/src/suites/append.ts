/**
 * Append throughput and latency, single messages and batches, with the FTS triggers live.
 * Reference: the raw binding running the same SQL the store runs (BEGIN IMMEDIATE, session
 * counter UPDATE, INSERT per message, COMMIT) with the same durability (synchronous=FULL), on a
 * byte-for-byte copy of the store file made just before, appending the same messages to the same
 * session. Store and raw take turns of BLOCK calls, the order flipped every round (store first,
 * then raw first), so drift in the machine hits both alike.
 *
 * Each side has a file of its own because an append's cost is not only its own: FTS5 merges
 * index segments once enough of them pile up, and the WAL is checkpointed every 1000 pages, each
 * tens of milliseconds, paid by whichever connection commits at that moment. On one shared file
 * that depended on the order of the calls: two identical raw connections read 0.87 to 1.29 for
 * batches, by order alone. On two identical files that receive the same appends, the merges and
 * checkpoints fall on the same calls on both sides.
 *
 * The ratio compares the mean time per call with each side's slowest SLOWEST_SHARE of calls left
 * out, which the disk's slow fsyncs land in. Rows/s and p99 still count every call.
 *
 * Whole process (a hook that appends one message and exits): import + open + one append + close,
 * the store script against the raw one (proc/open-*.js), each on its own copy of the file.
 */

import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { MessageInput } from "@sessiondb/core";
import { alternate } from "../alternate.js";
import { type Engine, type RawDb, SIDE_FILES } from "../engine.js";
import {
  RAW_INSERT_MESSAGE_SQL,
  RAW_UPDATE_SESSION_SQL,
  rawInsertArgs,
  rawUpdateArgs,
  sampleMessages,
} from "../raw-append.js";
import { latency, trimmedMean } from "../stats.js";
import { processMetrics, spawnBothSides } from "./cold.js";
import type { SuiteContext } from "./context.js";

/** Calls per side before the other side's turn (the peers suite takes the same turns): about 5–10 ms of single appends, or two
 * batches (a batch takes 10–30 ms, and longer turns let the machine's other load fall on one
 * side's turn more than the other's). */
export const BLOCK = { single: 10, batch: 2 } as const;
/** Share of each side's slowest calls the ratio leaves out (see above). */
export const SLOWEST_SHARE = 0.1;

function rawAppender(db: RawDb, sessionId: string): (messages: MessageInput[]) => void {
  const update = db.prepare(RAW_UPDATE_SESSION_SQL);
  const insert = db.prepare(RAW_INSERT_MESSAGE_SQL);
  return (messages) => {
    const t = Date.now() / 1000;
    db.exec("BEGIN IMMEDIATE");
    update.run(...rawUpdateArgs(sessionId, messages, t));
    for (const m of messages) insert.run(...rawInsertArgs(sessionId, m, t));
    db.exec("COMMIT");
  };
}

/** The session both sides append to, each in its own file. */
const SESSION = "bench-append";

export function appendSuite(engine: Engine, ctx: SuiteContext): void {
  const messages = sampleMessages(
    Math.max(ctx.plan.singles, ctx.plan.batches * ctx.plan.batchSize),
    777,
    true,
  );
  const setup = engine.openStore(ctx.db);
  setup.createSession({ id: SESSION, source: "bench" });
  setup.close();
  // The store's last close checkpointed its WAL into the file; make sure, then copy the file.
  const checkpoint = engine.openRaw(ctx.db);
  checkpoint.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  checkpoint.close();
  const referenceDb = join(ctx.work, "append-reference.db");
  const processDbs = {
    store: join(ctx.work, "append-process-store.db"),
    raw: join(ctx.work, "append-process-raw.db"),
  };
  for (const file of [referenceDb, processDbs.store, processDbs.raw]) {
    for (const suffix of SIDE_FILES) rmSync(file + suffix, { force: true });
    copyFileSync(ctx.db, file);
  }
  const store = engine.openStore(ctx.db);
  const raw = engine.openRaw(referenceDb);
  raw.exec("PRAGMA busy_timeout = 5000");
  raw.exec("PRAGMA synchronous = FULL");
  try {
    const sides = {
      // A single append is `appendMessage`, as a caller writes it; a batch `appendMessages`.
      store: (batch: MessageInput[]) =>
        void (batch.length === 1
          ? store.appendMessage(SESSION, batch[0] as MessageInput)
          : store.appendMessages(SESSION, batch)),
      raw: rawAppender(raw, SESSION),
    };
    for (const [kind, count, size] of [
      ["single", ctx.plan.singles, 1],
      ["batch", ctx.plan.batches, ctx.plan.batchSize],
    ] as const) {
      const lat = alternate(sides, ["store", "raw"], messages, count, size, BLOCK[kind]);
      const rows = (samples: number[]) => (samples.length * size * 1000) / samples.reduce((a, b) => a + b, 0);
      const s = latency(lat.store);
      const r = latency(lat.raw);
      ctx.metric(`append.${kind}.store.p50`, s.p50);
      ctx.metric(`append.${kind}.store.p99`, s.p99);
      ctx.metric(`append.${kind}.raw.p50`, r.p50);
      ctx.metric(`append.${kind}.store.rows`, rows(lat.store));
      ctx.metric(`append.${kind}.raw.rows`, rows(lat.raw));
      ctx.metric(`append.${kind}.ratio.all`, rows(lat.store) / rows(lat.raw));
      ctx.metric(
        `append.${kind}.ratio`,
        trimmedMean(lat.raw, SLOWEST_SHARE) / trimmedMean(lat.store, SLOWEST_SHARE),
      );
    }
  } finally {
    raw.close();
    store.close();
    for (const suffix of SIDE_FILES) rmSync(referenceDb + suffix, { force: true });
  }
  try {
    processMetrics(ctx, "append", spawnBothSides(engine, ctx, [SESSION, "append"], 1, processDbs));
  } finally {
    for (const file of [processDbs.store, processDbs.raw])
      for (const suffix of SIDE_FILES) rmSync(file + suffix, { force: true });
  }
}
