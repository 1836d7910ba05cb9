/**
 * A destructive upkeep job in a fresh process: `prune` does what `sessiondb prune --older-than`
 * does — `store.deleteSessions` of the sessions with the oldest last activity (pinned sessions and
 * the bench writer's own, source "bench", left alone) — choosing the oldest that hold `share` of
 * the store's messages; with `min-ms` > 0 (a tiny store) it goes on past the share until that
 * long has passed; `max-ms` stops it early (a large store). `vacuum` runs `store.vacuum()` (paced
 * incremental vacuum), stopped through its AbortSignal after `max-ms` if given.
 * Usage: <runtime> dist/proc/prune-op.js <target> <db> prune <share> <min-ms> [max-ms]
 *        <runtime> dist/proc/prune-op.js <target> <db> vacuum [max-ms]
 * Prints one JSON line.
 */
import process from "node:process";
import { loadEngine, type TargetId } from "../engine.js";
import { now } from "../stats.js";

const [target, path, op, ...rest] = process.argv.slice(2) as [
  TargetId,
  string,
  "prune" | "vacuum",
  ...string[],
];
const engine = await loadEngine(target);
const store = engine.openStore(path);
/** The database's size (pages × page size) and its free list, through the raw binding: the same
 * figures whether the vacuum ran to the end or was stopped. */
function space(): { bytes: number; freeBytes: number } {
  const raw = engine.openRaw(path);
  raw.exec("PRAGMA busy_timeout = 60000");
  const pragma = (name: string) => Number(Object.values(raw.prepare(`PRAGMA ${name}`).get() ?? {})[0]);
  const pageSize = pragma("page_size");
  const out = { bytes: pragma("page_count") * pageSize, freeBytes: pragma("freelist_count") * pageSize };
  raw.close();
  return out;
}

/** Close the store and print the job's one JSON line: its times, then `fields()` (read after the
 * close, so a size read through the raw binding sees the checkpointed file). */
function report(startedAt: number, t0: number, fields: () => Record<string, unknown>): void {
  const ms = now() - t0;
  const endedAt = Date.now();
  store.close();
  process.stdout.write(`${JSON.stringify({ op, ms, startedAt, endedAt, ...fields() })}\n`);
}

if (op === "prune") {
  const [share, minMs, maxMs] = rest.map(Number) as [number, number, number?];
  const total = store.messageCount();
  const oldestFirst = store
    .listSessions({ includeArchived: true, limit: Number.MAX_SAFE_INTEGER, orderBy: "activity" })
    .filter((s) => !s.pinned && s.source !== "bench")
    .reverse();
  // The oldest sessions that hold `share` of the messages (on a tiny store: all of them, so the
  // job runs at least min-ms — see below).
  const chosen: typeof oldestFirst = [];
  for (let messages = 0; chosen.length < oldestFirst.length && (messages < share * total || minMs > 0); ) {
    const next = oldestFirst[chosen.length] as (typeof oldestFirst)[number];
    chosen.push(next);
    messages += next.messageCount;
  }
  const startedAt = Date.now();
  const t0 = now();
  let last = t0;
  let longestStep = 0;
  let steps = 0;
  const stop = new AbortController();
  const bound = maxMs === undefined ? undefined : setTimeout(() => stop.abort(), maxMs);
  let done = { sessions: 0, messages: 0 };
  try {
    // What `sessiondb prune` does with the sessions it chose.
    await store.deleteSessions(
      chosen.map((s) => s.id),
      {
        signal: stop.signal,
        onProgress: (p) => {
          const at = now();
          longestStep = Math.max(longestStep, at - last);
          last = at;
          steps++;
          done = { sessions: p.sessions, messages: p.messages };
          // A tiny store: past its share once min-ms have passed.
          if (minMs > 0 && p.messages >= share * total && at - t0 >= minMs) stop.abort();
        },
      },
    );
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  }
  clearTimeout(bound);
  report(startedAt, t0, () => ({
    total,
    sessions: done.sessions,
    messages: done.messages,
    largest: Math.max(0, ...chosen.slice(0, done.sessions).map((s) => s.messageCount)),
    steps,
    longestStep,
    stopped: done.messages < share * total,
  }));
} else {
  const [maxMs] = rest.map(Number);
  const before = space();
  let steps = 0;
  let stopped = false;
  const startedAt = Date.now();
  const t0 = now();
  let result: Awaited<ReturnType<typeof store.vacuum>> | undefined;
  try {
    result = await store.vacuum({
      onProgress: () => {
        steps++;
      },
      ...(maxMs === undefined ? {} : { signal: AbortSignal.timeout(maxMs) }),
    });
  } catch (error) {
    if (!(maxMs !== undefined && error instanceof Error && /abort|timeout/i.test(error.name))) throw error;
    stopped = true;
  }
  report(startedAt, t0, () => {
    const after = space();
    return {
      steps,
      stopped,
      method: result?.method ?? "incremental",
      note: result?.note,
      bytesBefore: before.bytes,
      freeBefore: before.freeBytes,
      bytesAfter: after.bytes,
      freeAfter: after.freeBytes,
    };
  });
}
