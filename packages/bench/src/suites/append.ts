/**
 * Append throughput and latency, single messages and batches, with the FTS triggers live.
 * Reference: the raw binding running the same SQL the store runs (BEGIN IMMEDIATE, session
 * counter UPDATE, INSERT per message, COMMIT) on the same file with the same durability
 * (synchronous=FULL). Store and raw alternate in blocks so drift hits both alike.
 */

import type { MessageInput } from "@sessiondb/core";
import { generateCorpus } from "../corpus/index.js";
import type { Engine, RawDb } from "../engine.js";
import { latency, now } from "../stats.js";
import type { SuiteContext } from "./context.js";

const BLOCK = 10;

/** A fixed sample of realistic messages (string content only, so raw can insert them as is). */
function sample(count: number): MessageInput[] {
  const out: MessageInput[] = [];
  for (const item of generateCorpus({ seed: 777, messages: count * 3 })) {
    for (const m of item.messages) if (typeof m.content === "string" || m.content === null) out.push(m);
  }
  return out.slice(0, count);
}

function rawAppender(db: RawDb, sessionId: string): (messages: MessageInput[]) => void {
  const update = db.prepare(
    `UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ?,
       last_activity_at = max(coalesce(last_activity_at, ?), ?) WHERE id = ?`,
  );
  const insert = db.prepare(
    `INSERT INTO messages (session_id, role, content, content_parts, tool_name, tool_call_id, tool_calls,
       timestamp, token_count, finish_reason, reasoning, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return (messages) => {
    const t = Date.now() / 1000;
    db.exec("BEGIN IMMEDIATE");
    update.run(
      messages.length,
      messages.reduce((n, m) => n + (m.toolCalls?.length ?? 0), 0),
      t,
      t,
      sessionId,
    );
    for (const m of messages) {
      insert.run(
        sessionId,
        m.role,
        (m.content as string | null) ?? null,
        null,
        m.toolName ?? null,
        m.toolCallId ?? null,
        m.toolCalls ? JSON.stringify(m.toolCalls) : null,
        m.timestamp ?? t,
        m.tokenCount ?? null,
        m.finishReason ?? null,
        m.reasoning ?? null,
        null,
      );
    }
    db.exec("COMMIT");
  };
}

export function appendSuite(engine: Engine, ctx: SuiteContext): void {
  const messages = sample(Math.max(ctx.plan.singles, ctx.plan.batches * ctx.plan.batchSize));
  const store = engine.openStore(ctx.db);
  const raw = engine.openRaw(ctx.db);
  raw.exec("PRAGMA busy_timeout = 5000");
  raw.exec("PRAGMA synchronous = FULL");
  try {
    store.createSession({ id: "bench-append-store", source: "bench" });
    store.createSession({ id: "bench-append-raw", source: "bench" });
    const sides = {
      store: (batch: MessageInput[]) => void store.appendMessages("bench-append-store", batch),
      raw: rawAppender(raw, "bench-append-raw"),
    };
    for (const [kind, count, size] of [
      ["single", ctx.plan.singles, 1],
      ["batch", ctx.plan.batches, ctx.plan.batchSize],
    ] as const) {
      const lat = { store: [] as number[], raw: [] as number[] };
      for (let done = 0; done < count; done += BLOCK) {
        const order = (done / BLOCK) % 2 === 0 ? (["store", "raw"] as const) : (["raw", "store"] as const);
        for (const side of order) {
          for (let i = done; i < Math.min(count, done + BLOCK); i++) {
            const batch = messages.slice((i * size) % messages.length, ((i * size) % messages.length) + size);
            const t0 = now();
            sides[side](batch);
            lat[side].push(now() - t0);
          }
        }
      }
      const rows = (samples: number[]) => (samples.length * size * 1000) / samples.reduce((a, b) => a + b, 0);
      const s = latency(lat.store);
      const r = latency(lat.raw);
      ctx.metric(`append.${kind}.store.p50`, s.p50);
      ctx.metric(`append.${kind}.store.p99`, s.p99);
      ctx.metric(`append.${kind}.raw.p50`, r.p50);
      ctx.metric(`append.${kind}.store.rows`, rows(lat.store));
      ctx.metric(`append.${kind}.raw.rows`, rows(lat.raw));
      ctx.metric(`append.${kind}.ratio`, rows(lat.store) / rows(lat.raw));
    }
  } finally {
    raw.close();
    store.close();
  }
}
