/**
 * `store.deleteSessions(ids)`: delete many sessions (a prune, a clean-up) while other processes
 * keep writing to the store.
 *
 * Deleting one session after another as fast as they go starves the other writers: each delete
 * is a short transaction, but the next one takes the write lock again within microseconds, while
 * a waiting writer retries on SQLite's busy handler and the store's patience, which sleep
 * milliseconds between tries — it wakes up to find the lock taken again, and an append waited
 * out whole runs of deletes (a prune of 10 % of a 100k-message store: appends of 0.5 s, five
 * appends in a second where the writer alone makes ~150). So the deletes run as a paced job
 * (maintenance/paced.ts), as the backfill and vacuum do: steps sized to hold the write lock about
 * 15 ms while others write, with a pause about twice as long between them; alone, steps grow
 * and the job runs at nearly full speed, still pausing PACE_MIN_PAUSE_MS after each step: a
 * writer that is waiting for the lock does not show until it gets it.
 *
 * A step deletes whole sessions — at least one, then more while their messages fit the step's
 * chunk — in one transaction, so a crash or an abort never leaves part of a session: every
 * session is either gone with its messages and usage, or untouched. One very large session is
 * still one step (its delete cannot be split without leaving half of it visible).
 */
import { PACE_MIN_PAUSE_MS } from "../constants.js";
import { all, get, now, type Op } from "../engine/effects.js";
import type {
  DeleteSessionsOptions,
  DeleteSessionsProgress,
  DeleteSessionsResult,
} from "../maintenance/delete-sessions.js";
import { paced, type StepTiming, timedWrite } from "../maintenance/paced.js";
import * as valid from "../model/validate.js";
import { guard } from "../policy/calls.js";
import type { StepMemory } from "../policy/state.js";
import { removeSessionIfPresent } from "./sessions.js";

/** Messages per step. The first step about PACE_TARGET_HOLD_MS long (deletes cost ~0.07 ms a
 * message on the bench corpus, plus the commit): a writer may be waiting already, and while
 * others write a chunk never grows, so a smaller start would leave the whole job at one small
 * session per step — a pause of 30 ms or more after each. Never below one session; at most
 * DELETE_MAX_CHUNK_MESSAGES (~0.15 s of deletes) when nobody else writes. */
const DELETE_START_CHUNK_MESSAGES = 200;
const DELETE_MIN_CHUNK_MESSAGES = 1;
const DELETE_MAX_CHUNK_MESSAGES = 2000;
/** Ids a step looks up at once (one query). The ids that name no session cost nothing more, and
 * a step ends with its window: a list of unknown ids (a prune racing another prune, a typo'd
 * export list) goes by in short steps with pauses between them, not in one long transaction of
 * a few statements per id — on a server engine, a round trip each. */
const DELETE_LOOKUP_IDS = 2000;

/** What a step deleted, where the next one starts, and how its transaction went. */
type DeleteStep = { next: number; sessions: number; messages: number; notFound: string[] } & StepTiming;

function* messagesOf(id: string): Op<number> {
  return Number((yield* get("SELECT count(*) AS n FROM messages WHERE session_id = ?", id))?.n ?? 0);
}

/** The ids of `window` that name a session. */
function* existing(window: readonly string[]): Op<Set<string>> {
  const rows = yield* all(
    "SELECT id FROM sessions WHERE id IN (SELECT value FROM json_each(?))",
    JSON.stringify(window),
  );
  return new Set(rows.map((row) => row.id as string));
}

/** Inside a transaction: delete `ids[from]`, then the sessions after it while their messages keep
 * the step within `chunk`, up to DELETE_LOOKUP_IDS ids in all. */
function* deleteStepTx(ids: readonly string[], from: number, chunk: number) {
  const step = { next: from, sessions: 0, messages: 0, notFound: [] as string[] };
  const end = Math.min(ids.length, from + DELETE_LOOKUP_IDS);
  const present = yield* existing(ids.slice(from, end));
  while (step.next < end) {
    const id = ids[step.next] as string;
    if (!present.has(id)) {
      step.next++;
      step.notFound.push(id);
      continue;
    }
    if (step.sessions > 0 && step.messages + (yield* messagesOf(id)) > chunk) break;
    step.next++;
    const removed = yield* removeSessionIfPresent(id);
    if (removed === undefined) step.notFound.push(id);
    else {
      step.sessions++;
      step.messages += removed;
    }
  }
  return step;
}

function* timedDeleteStep(
  ids: readonly string[],
  from: number,
  chunk: number,
  memory: StepMemory,
): Op<DeleteStep> {
  const { outcome, timing } = yield* timedWrite(() => deleteStepTx(ids, from, chunk), memory);
  return { ...outcome, ...timing };
}

/** `store.deleteSessions` for either store (see the module comment). The sync store runs it with
 * `runSyncYielding`, so it returns a promise there too and the event loop runs between steps. */
export function* deleteSessions(
  ids: readonly string[],
  options?: DeleteSessionsOptions | null,
): Op<DeleteSessionsResult> {
  const queue = valid.sessionIds(ids, "ids");
  const o = valid.options(options, "deleteSessions", ["onProgress", "signal"]);
  const onProgress = valid.callbackOption<(progress: DeleteSessionsProgress) => void>(
    o.onProgress,
    "deleteSessions.onProgress",
  );
  const signal = valid.signalOption(o.signal, "deleteSessions.signal");
  yield* guard("writable", "deleteSessions");
  signal?.throwIfAborted();
  const started = yield* now();
  const done = { next: 0, sessions: 0, messages: 0, notFound: [] as string[] };
  if (queue.length > 0) {
    const memory: StepMemory = {};
    yield* paced<DeleteStep>({
      step: (chunk) => timedDeleteStep(queue, done.next, chunk, memory),
      after: (step) => tally(step, done, queue.length, onProgress),
      startChunk: DELETE_START_CHUNK_MESSAGES,
      minChunk: DELETE_MIN_CHUNK_MESSAGES,
      maxChunk: DELETE_MAX_CHUNK_MESSAGES,
      // Deletes are many short steps: a waiting writer must find a gap after every one. Alone,
      // steps grow to DELETE_MAX_CHUNK_MESSAGES, so this costs a prune a few per cent at most.
      minPauseMs: PACE_MIN_PAUSE_MS,
      signal,
    });
  } else {
    onProgress?.({ sessions: 0, messages: 0, totalSessions: 0, done: true });
  }
  return {
    sessions: done.sessions,
    messages: done.messages,
    notFound: done.notFound,
    durationMs: (yield* now()) - started,
  };
}

/** Add a step to the tally and report it; true while sessions remain. */
// biome-ignore lint/correctness/useYield: an operation that needs no statement
function* tally(
  step: DeleteStep,
  done: { next: number; sessions: number; messages: number; notFound: string[] },
  total: number,
  onProgress: ((progress: DeleteSessionsProgress) => void) | undefined,
): Op<boolean> {
  done.next = step.next;
  done.sessions += step.sessions;
  done.messages += step.messages;
  // One at a time: a step can hold more unknown ids than a spread may pass as arguments.
  for (const id of step.notFound) done.notFound.push(id);
  const more = done.next < total;
  onProgress?.({ sessions: done.sessions, messages: done.messages, totalSessions: total, done: !more });
  return more;
}
