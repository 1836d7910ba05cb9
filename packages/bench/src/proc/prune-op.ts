/**
 * A destructive upkeep job in a fresh process, and the import that undoes it: `prune` does what
 * `sessiondb prune --older-than` does — `store.deleteSessions` of the sessions with the oldest
 * last activity (pinned sessions and the bench writer's own, source "bench", left alone) —
 * choosing the oldest that hold `share` of the store's messages; with `min-ms` > 0 (a tiny store)
 * it goes on past the share until that long has passed; `max-ms` stops it early (a large store).
 * `vacuum` runs `store.vacuum()` (paced incremental vacuum), stopped through its AbortSignal
 * after `max-ms` if given. `import` writes the same sessions back with `store.importSessions`, as
 * `sessiondb import` does, reading them one at a time from `corpus` (the untouched original),
 * stopped after `max-ms` if given.
 * Usage: <runtime> dist/proc/prune-op.js <target> <db> prune <share> <min-ms> [max-ms]
 *        <runtime> dist/proc/prune-op.js <target> <db> vacuum [max-ms]
 *        <runtime> dist/proc/prune-op.js <target> <db> import <corpus> <share> <min-ms> [max-ms]
 * Prints one JSON line.
 */
import process from "node:process";
import type { ImportSessionInput, Session, Store } from "@sessiondb/core";
import { loadEngine, type TargetId } from "../engine.js";
import { now } from "../stats.js";

const [target, path, op, ...rest] = process.argv.slice(2) as [
  TargetId,
  string,
  "prune" | "vacuum" | "import",
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

/** The oldest sessions of `from` that hold `share` of its messages (on a tiny store, `minMs` > 0:
 * all of them, so the prune runs at least min-ms — see below). */
function oldest(from: Store, share: number, minMs: number): { chosen: Session[]; total: number } {
  const total = from.messageCount();
  const oldestFirst = from
    .listSessions({ includeArchived: true, limit: Number.MAX_SAFE_INTEGER, orderBy: "activity" })
    .filter((s) => !s.pinned && s.source !== "bench")
    .reverse();
  const chosen: Session[] = [];
  for (let messages = 0; chosen.length < oldestFirst.length && (messages < share * total || minMs > 0); ) {
    const next = oldestFirst[chosen.length] as Session;
    chosen.push(next);
    messages += next.messageCount;
  }
  return { chosen, total };
}

/** The sessions read back from `from`, one at a time, as an import file would give them: the
 * store's own sessions and messages, written back as they read (nulls and extra fields too). */
async function* sessionsOf(from: Store, chosen: Session[]): AsyncGenerator<ImportSessionInput> {
  for (const s of chosen) {
    yield {
      session: s,
      messages: from.getMessages(s.id, { includeInactive: true }),
      archived: s.archived,
      pinned: s.pinned,
      ...(s.endedAt !== null && s.endReason !== null
        ? { ended: { reason: s.endReason, at: s.endedAt } }
        : {}),
    };
  }
}

/** Steps of a paced job, counted from its progress calls: how many, and the longest gap
 * between two (a step with the pause before it). */
class StepClock {
  readonly startedAt = Date.now();
  readonly t0 = now();
  #last = this.t0;
  steps = 0;
  longestStep = 0;

  /** A progress call: the time now. */
  tick(): number {
    const at = now();
    this.longestStep = Math.max(this.longestStep, at - this.#last);
    this.#last = at;
    this.steps++;
    return at;
  }
}

if (op === "prune") {
  const [share, minMs, maxMs] = rest.map(Number) as [number, number, number?];
  const { chosen, total } = oldest(store, share, minMs);
  const clock = new StepClock();
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
          const at = clock.tick();
          done = { sessions: p.sessions, messages: p.messages };
          // A tiny store: past its share once min-ms have passed.
          if (minMs > 0 && p.messages >= share * total && at - clock.t0 >= minMs) stop.abort();
        },
      },
    );
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  }
  clearTimeout(bound);
  report(clock.startedAt, clock.t0, () => ({
    total,
    sessions: done.sessions,
    messages: done.messages,
    largest: Math.max(0, ...chosen.slice(0, done.sessions).map((s) => s.messageCount)),
    steps: clock.steps,
    longestStep: clock.longestStep,
    stopped: done.messages < share * total,
  }));
} else if (op === "import") {
  const [corpus, share, minMs, maxMs] = [rest[0] as string, ...rest.slice(1).map(Number)] as [
    string,
    number,
    number,
    number?,
  ];
  const from = engine.openStore(corpus, { readOnly: true });
  const { chosen } = oldest(from, share, minMs);
  const clock = new StepClock();
  let done = { sessions: 0, messages: 0 };
  const stop = new AbortController();
  const bound = maxMs === undefined ? undefined : setTimeout(() => stop.abort(), maxMs);
  let result: Awaited<ReturnType<Store["importSessions"]>> | undefined;
  try {
    result = await store.importSessions(sessionsOf(from, chosen), {
      signal: stop.signal,
      onProgress: (p) => {
        clock.tick();
        done = p;
      },
    });
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  }
  clearTimeout(bound);
  from.close();
  report(clock.startedAt, clock.t0, () => ({
    chosen: chosen.length,
    sessions: result?.imported ?? done.sessions,
    messages: result?.messages ?? done.messages,
    skipped: result?.skipped.length ?? 0,
    failed: result?.failed.length ?? 0,
    steps: clock.steps,
    longestStep: clock.longestStep,
    stopped: result === undefined,
  }));
} else {
  const [maxMs] = rest.map(Number);
  const before = space();
  let stopped = false;
  const clock = new StepClock();
  let result: Awaited<ReturnType<typeof store.vacuum>> | undefined;
  try {
    result = await store.vacuum({
      onProgress: () => clock.tick(),
      ...(maxMs === undefined ? {} : { signal: AbortSignal.timeout(maxMs) }),
    });
  } catch (error) {
    if (!(maxMs !== undefined && error instanceof Error && /abort|timeout/i.test(error.name))) throw error;
    stopped = true;
  }
  report(clock.startedAt, clock.t0, () => {
    const after = space();
    return {
      steps: clock.steps,
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
