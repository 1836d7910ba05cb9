/**
 * A destructive upkeep job in a fresh process: `prune` does what `sessiondb prune --older-than`
 * does — one `store.deleteSession` per session (one write transaction each), oldest last
 * activity first, pinned sessions and the bench writer's own ("bench" source) left alone — until
 * `share` of the store's messages are gone and at least `min-ms` have passed, or `max-ms` have
 * passed (a large store), or nothing is left to delete. `vacuum` runs `store.vacuum()` (paced
 * incremental vacuum), stopped through its AbortSignal after `max-ms` if given.
 * Usage: <runtime> dist/proc/prune-op.js <target> <db> prune <share> <min-ms> [max-ms]
 *        <runtime> dist/proc/prune-op.js <target> <db> vacuum [max-ms]
 * Prints one JSON line.
 */
import process from "node:process";
import { setImmediate } from "node:timers";
import { loadEngine, type TargetId } from "../engine.js";
import { median, now } from "../stats.js";

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

if (op === "prune") {
  const [share, minMs, maxMs] = rest.map(Number) as [number, number, number?];
  const total = store.messageCount();
  const oldestFirst = store
    .listSessions({ includeArchived: true, limit: Number.MAX_SAFE_INTEGER, orderBy: "activity" })
    .filter((s) => !s.pinned && s.source !== "bench")
    .reverse();
  const deletes: Array<{ ms: number; messages: number }> = [];
  let messages = 0;
  const startedAt = Date.now();
  const t0 = now();
  for (const session of oldestFirst) {
    const elapsed = now() - t0;
    if (messages >= share * total && elapsed >= minMs) break;
    if (maxMs !== undefined && elapsed >= maxMs) break;
    const d0 = now();
    const removed = store.deleteSession(session.id);
    deletes.push({ ms: now() - d0, messages: removed });
    messages += removed;
    // As the CLI does between two sessions: let the event loop (and Ctrl-C) through.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const ms = now() - t0;
  const endedAt = Date.now();
  store.close();
  const slowest = deletes.reduce((a, b) => (b.ms > a.ms ? b : a), { ms: 0, messages: 0 });
  process.stdout.write(
    `${JSON.stringify({
      op,
      ms,
      startedAt,
      endedAt,
      total,
      sessions: deletes.length,
      messages,
      largest: Math.max(0, ...deletes.map((d) => d.messages)),
      deleteP50: median(deletes.map((d) => d.ms)),
      slowestMs: slowest.ms,
      slowestMessages: slowest.messages,
      stopped: messages < share * total,
    })}\n`,
  );
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
  const ms = now() - t0;
  const endedAt = Date.now();
  store.close();
  const after = space();
  process.stdout.write(
    `${JSON.stringify({
      op,
      ms,
      startedAt,
      endedAt,
      steps,
      stopped,
      method: result?.method ?? "incremental",
      note: result?.note,
      bytesBefore: before.bytes,
      freeBefore: before.freeBytes,
      bytesAfter: after.bytes,
      freeAfter: after.freeBytes,
    })}\n`,
  );
}
