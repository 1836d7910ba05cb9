/**
 * `store.importSessions(items)`: write many whole sessions (an import, a migration from another
 * store) while other processes keep writing to the store.
 *
 * Writing one session after another, each in a transaction of its own, starves the other
 * writers the way a one-by-one prune did (delete-sessions.ts): the next transaction takes the
 * write lock again within microseconds, and a waiting writer wakes up to find it taken (measured:
 * `sessiondb import` of 250 sessions next to a writer appending every 5 ms — 98 appends where ~640
 * were due, the slowest 0.37 s). So the import is a paced job (maintenance/paced.ts): a step is
 * one write transaction of whole sessions, sized to hold the lock about 15 ms while others write,
 * with a pause between steps; alone, steps grow to many sessions, and the import commits far
 * fewer times than one transaction per session would.
 *
 * Each session is a savepoint of its step: a session the store refuses (a bad field, a message
 * over the limits) is rolled back alone and reported, and the sessions around it are imported.
 * A session already in the store with messages is skipped, so running an import again is safe.
 * A session whose parent is neither in the store nor imported yet waits for it: it is imported
 * right after its parent, or, when the input ends without it (or the parent's import failed),
 * without the link and reported in `unlinked`. The items are read one at a time from any
 * iterable, sync or async (a file read line by line), outside every transaction.
 */
import { PACE_MIN_PAUSE_MS } from "../constants.js";
import { awaited, get, now, type Op, STATE } from "../engine/effects.js";
import { InvalidInputError } from "../errors.js";
import type {
  ImportFailure,
  ImportSessionInput,
  ImportSessionsOptions,
  ImportSessionsProgress,
  ImportSessionsResult,
} from "../maintenance/import-sessions.js";
import { paced, type StepTiming, timedWrite } from "../maintenance/paced.js";
import type { CreateSessionInput, MessageInput } from "../model/types.js";
import * as valid from "../model/validate.js";
import { guard, write } from "../policy/calls.js";
import type { StepMemory, StorePolicy } from "../policy/state.js";
import { appendMessages } from "./messages.js";
import { CREATE_FIELDS, createSession, endSession, updateSession } from "./sessions.js";

/** Messages per step. The first step small (a writer may be waiting already); while others
 * write, steps shrink to hold the lock ~15 ms (never below one session); alone they grow to
 * IMPORT_MAX_CHUNK_MESSAGES (a few hundred ms of inserts into both indexes). */
const IMPORT_START_CHUNK_MESSAGES = 200;
const IMPORT_MIN_CHUNK_MESSAGES = 1;
const IMPORT_MAX_CHUNK_MESSAGES = 10_000;
/** How long a step waits for more input once it has a session to write: an input that hands
 * items over slowly (a live feed, a slow network) gets what it gave written in steps, instead
 * of held in memory until a whole chunk arrived. */
const IMPORT_READ_AHEAD_MS = 100;
/** The most text a step reads ahead and writes, besides its first session (whole sessions go
 * together): a count of messages alone let 10 000 tool outputs of 100 KB — a gigabyte — be held
 * at once. */
const IMPORT_MAX_CHUNK_CHARS = 8 * 1024 * 1024;
/** How deep `approximateChars` looks into a message's JSON values. */
const SIZE_DEPTH = 6;

/** An item read from the input, its fields read once. */
interface Pending {
  index: number;
  id: string;
  /** The parent it names, when that is a valid id (an invalid one fails in createSession). */
  parent: string | undefined;
  session: Record<string, unknown>;
  messages: unknown;
  /** Messages it carries (0 when `messages` is not an array: that fails in appendMessages). */
  size: number;
  /** About how many characters its messages hold (approximateChars). */
  chars: number;
  archived: unknown;
  pinned: unknown;
  ended: { reason: unknown; at: unknown } | undefined;
  /** Never wait for the parent again: link it if stored, else import without it. */
  final: boolean;
}

/** What became of one item in a step. */
type Outcome =
  | { kind: "imported"; item: Pending; resumed: boolean; unlinked: boolean }
  | { kind: "skipped" | "waiting"; item: Pending }
  | { kind: "failed"; item: Pending; error: InvalidInputError };

type ImportStep = { outcomes: Outcome[] } & StepTiming;

const ITEM_KEYS = ["session", "messages", "archived", "pinned", "ended"] as const;

/** Read an item's fields once; an item of the wrong shape is a failure of its own. */
function readItem(value: unknown, index: number): Pending | ImportFailure {
  let sessionId: string | undefined;
  try {
    const item = valid.record(value, "item", ITEM_KEYS);
    const session = valid.record(item.session, "session", CREATE_FIELDS, "session");
    if (typeof session.id === "string") sessionId = session.id;
    const id = valid.sessionId(session.id, "id");
    let parent: string | undefined;
    try {
      if (session.parentSessionId !== undefined) parent = valid.sessionId(session.parentSessionId);
    } catch {
      // createSession refuses it under its own field name.
    }
    // So does a session named as its own parent: it must not wait for itself.
    if (parent === id) parent = undefined;
    const ended =
      item.ended === undefined ? undefined : valid.record(item.ended, "ended", ["reason", "at"], "ended");
    return {
      index,
      id,
      parent,
      session,
      messages: item.messages,
      size: Array.isArray(item.messages) ? item.messages.length : 0,
      chars: approximateChars(item.messages, SIZE_DEPTH),
      archived: item.archived,
      pinned: item.pinned,
      ended: ended && { reason: ended.reason, at: ended.at },
      final: false,
    };
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    return { index, ...(sessionId === undefined ? {} : { sessionId }), error };
  }
}

/**
 * About how many characters `value` holds: its strings' lengths, to `depth` levels of arrays and
 * objects. It only sizes the steps, so it reads what appendMessages will read and validate again,
 * and a value it cannot read (a getter that throws) counts what was read before.
 */
function approximateChars(value: unknown, depth: number): number {
  if (typeof value === "string") return value.length;
  if (depth === 0 || typeof value !== "object" || value === null) return 1;
  let chars = 0;
  try {
    for (const child of Array.isArray(value) ? value : Object.values(value))
      chars += approximateChars(child, depth - 1);
  } catch {
    // appendMessages reports it
  }
  return chars;
}

/** Inside the step's transaction: write one session, its messages, flags and end. */
function* writeSession(item: Pending, linked: boolean, patienceMs: number): Op<void> {
  const session = linked ? item.session : { ...item.session, parentSessionId: undefined };
  yield* createSession(session as unknown as CreateSessionInput);
  if (item.messages !== undefined)
    yield* appendMessages(item.id, item.messages as MessageInput[], patienceMs);
  if (item.archived !== undefined || item.pinned !== undefined) {
    yield* updateSession(item.id, {
      ...(item.archived === undefined ? {} : { archived: item.archived as boolean }),
      ...(item.pinned === undefined ? {} : { pinned: item.pinned as boolean }),
    });
  }
  if (item.ended) {
    const at = item.ended.at;
    yield* endSession(
      item.id,
      item.ended.reason as string,
      at === undefined ? undefined : { at: at as number },
    );
  }
}

function* stored(id: string): Op<{ messages: number } | undefined> {
  const row = yield* get("SELECT message_count AS n FROM sessions WHERE id = ?", id);
  return row && { messages: Number(row.n) };
}

/** Inside a transaction: what becomes of one item (each written session is a savepoint). */
function* importOne(item: Pending, failedIds: ReadonlySet<string>, patienceMs: number): Op<Outcome> {
  const existing = yield* stored(item.id);
  if (existing && existing.messages > 0) return { kind: "skipped", item };
  let linked = true;
  if (item.parent !== undefined && !(yield* stored(item.parent))) {
    if (!item.final && !failedIds.has(item.parent)) return { kind: "waiting", item };
    linked = false;
  }
  try {
    yield* write(() => writeSession(item, linked, patienceMs));
  } catch (error) {
    // Only a refused value is this session's alone; anything else (busy, read-only, full,
    // corrupt) would fail every session after it, so it ends the import.
    if (!(error instanceof InvalidInputError)) throw error;
    return { kind: "failed", item, error };
  }
  return { kind: "imported", item, resumed: existing !== undefined, unlinked: !linked };
}

function* importStepTx(batch: readonly Pending[], failedIds: ReadonlySet<string>, patienceMs: number) {
  const outcomes: Outcome[] = [];
  for (const item of batch) outcomes.push(yield* importOne(item, failedIds, patienceMs));
  return outcomes;
}

/** What `ImportQueue.#read` gives when the read-ahead time ran out first. */
const SLOW = Symbol("slow input");

/** The job between its steps: the input, the items read ahead, and the ones waiting for a parent. */
class ImportQueue {
  readonly #source: Iterator<unknown> | AsyncIterator<unknown>;
  readonly #signal: AbortSignal | undefined;
  /** An async input's `next()` that has not settled yet: asked again only once it has. */
  #pending: Promise<unknown> | undefined;
  /** Whether the input answers with promises (only then can it keep a step waiting). */
  #async = false;
  #index = 0;
  #ended = false;
  ready: Pending[] = [];
  /** Items waiting for a parent, by the parent's id. */
  readonly waiting = new Map<string, Pending[]>();
  readonly failedIds = new Set<string>();
  /** Failures of items that never reached a step (their shape). */
  readonly refused: ImportFailure[] = [];

  constructor(source: Iterator<unknown> | AsyncIterator<unknown>, signal: AbortSignal | undefined) {
    this.#source = source;
    this.#signal = signal;
  }

  get more(): boolean {
    return this.ready.length > 0 || this.waiting.size > 0 || !this.#ended;
  }

  /** Whether the input is still working on an item: its `return()` would wait for that item. */
  get reading(): boolean {
    return this.#pending !== undefined;
  }

  /** Read items until those ready carry `chunk` messages or IMPORT_MAX_CHUNK_CHARS of text, the
   * input ends, or — with something ready — it has kept the step waiting IMPORT_READ_AHEAD_MS;
   * then, with nothing ready and the input ended, the waiting items go without waiting any more. */
  *fill(chunk: number): Op<void> {
    let size = 0;
    let chars = 0;
    for (const item of this.ready) {
      size += item.size;
      chars += item.chars;
    }
    let deadline: Deadline | undefined;
    try {
      while (!this.#ended && (this.ready.length === 0 || (size < chunk && chars < IMPORT_MAX_CHUNK_CHARS))) {
        if (this.ready.length > 0 && this.#async) deadline ??= startDeadline(IMPORT_READ_AHEAD_MS);
        const next = yield* awaited(() => this.#read(deadline));
        if (next === SLOW) break;
        const item = this.#take(next);
        size += item?.size ?? 0;
        chars += item?.chars ?? 0;
      }
    } finally {
      deadline?.clear();
    }
    if (this.#ended && this.ready.length === 0) this.#release();
  }

  /** The input's next result: at once from a sync input; from an async one, unless the signal
   * aborts (its reason is thrown) or `deadline` passes (SLOW: the same `next()` is awaited again
   * by the next read) first. */
  #read(deadline: Deadline | undefined): unknown {
    if (this.#pending === undefined) {
      const next = this.#source.next();
      if (typeof (next as { then?: unknown } | null)?.then !== "function") return next;
      this.#async = true;
      const pending = Promise.resolve(next);
      // Settled while nobody waits (after an abort): not an unhandled rejection.
      pending.catch(() => {});
      this.#pending = pending;
    }
    return this.#settle(this.#pending, deadline);
  }

  async #settle(pending: Promise<unknown>, deadline: Deadline | undefined): Promise<unknown> {
    const stop = abortion(this.#signal);
    try {
      const settled = pending.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      const first = await Promise.race([settled, stop.promise, ...(deadline ? [deadline.promise] : [])]);
      if (first === SLOW) return SLOW;
      this.#pending = undefined;
      if ("error" in (first as object)) throw (first as { error: unknown }).error;
      return (first as { value: unknown }).value;
    } finally {
      stop.clear();
    }
  }

  /** Take one iterator result: the item read (undefined for one refused, and at the input's end). */
  #take(next: unknown): Pending | undefined {
    // What for…of would refuse too; without it, an iterator that never says `done` this way
    // would be read forever.
    if (next === null || typeof next !== "object")
      throw new InvalidInputError("items", "its iterator returned something other than an iterator result");
    const result = next as IteratorResult<unknown>;
    if (result.done) {
      this.#ended = true;
      return undefined;
    }
    const read = readItem(result.value, this.#index++);
    if ("error" in read) {
      this.refused.push(read);
      return undefined;
    }
    this.ready.push(read);
    return read;
  }

  /** The next step's items: the first ready one, then more while they fit `chunk` messages and
   * IMPORT_MAX_CHUNK_CHARS — and, while they fit, the items waiting for one of those, after it:
   * the step writes the parent first, so they link to it. (Left waiting, a chain given children
   * first would take one step, and its pause, per generation.) */
  take(chunk: number): Pending[] {
    let size = 0;
    let chars = 0;
    const fits = (item: Pending, first: boolean) =>
      first || (size + item.size <= chunk && chars + item.chars <= IMPORT_MAX_CHUNK_CHARS);
    let n = 0;
    for (; n < this.ready.length; n++) {
      const item = this.ready[n] as Pending;
      if (!fits(item, n === 0)) break;
      size += item.size;
      chars += item.chars;
    }
    const batch = this.ready.splice(0, n);
    for (let i = 0; i < batch.length; i++) {
      const id = (batch[i] as Pending).id;
      const children = this.waiting.get(id);
      if (!children) continue;
      while (children.length > 0 && fits(children[0] as Pending, false)) {
        const child = children.shift() as Pending;
        size += child.size;
        chars += child.chars;
        batch.push(child);
      }
      if (children.length === 0) this.waiting.delete(id);
    }
    return batch;
  }

  /** After a step: a waiting item goes on with its parent. */
  settled(outcome: Outcome): void {
    const { item } = outcome;
    if (outcome.kind === "waiting") {
      // Its parent failed earlier in the same step: it goes on at once, without the link.
      if (this.failedIds.has(item.parent as string)) {
        this.ready.unshift(item);
        return;
      }
      const list = this.waiting.get(item.parent as string) ?? [];
      list.push(item);
      this.waiting.set(item.parent as string, list);
      return;
    }
    if (outcome.kind === "failed") this.failedIds.add(item.id);
    const children = this.waiting.get(item.id);
    if (!children) return;
    this.waiting.delete(item.id);
    // Imported or skipped, the parent is stored now; failed, its children go without it.
    this.ready = children.concat(this.ready);
  }

  /** The input ended and nothing is ready: the waiting items whose parent is not waiting itself
   * go now, linked if their parent was stored meanwhile. When only cycles of parents are left,
   * one session of a cycle goes without its parent, and the rest of the cycle follows it,
   * linked. (Releasing every session of a cycle at once would leave sessions unlinked whose
   * parent is imported right after them.) */
  #release(): void {
    const waitingIds = new Set([...this.waiting.values()].flat().map((item) => item.id));
    const parents = [...this.waiting.keys()].filter((parent) => !waitingIds.has(parent));
    if (parents.length === 0) {
      this.#releaseOneOfACycle();
      return;
    }
    for (const parent of parents) {
      for (const item of this.waiting.get(parent) as Pending[]) this.ready.push({ ...item, final: true });
      this.waiting.delete(parent);
    }
  }

  /** Release one session on a cycle. Every waiting session's parent is waiting too (else
   * `#release` would have released its children), so a walk up the parents from any of them
   * closes a cycle, and the first session it meets twice is on it — not on a chain hanging from
   * the cycle, whose sessions would go unlinked although their parents are imported after them. */
  #releaseOneOfACycle(): void {
    const byId = new Map<string, Pending>();
    for (const items of this.waiting.values()) for (const item of items) byId.set(item.id, item);
    const seen = new Set<string>();
    let at = byId.values().next().value;
    while (at && !seen.has(at.id)) {
      seen.add(at.id);
      at = byId.get(at.parent as string);
    }
    const items = at && this.waiting.get(at.parent as string);
    if (!at || !items) return;
    // One id given twice: the map holds the later item; take the list's own.
    const index = items.indexOf(at);
    const [item] = items.splice(index >= 0 ? index : 0, 1) as [Pending];
    if (items.length === 0) this.waiting.delete(at.parent as string);
    this.ready.push({ ...item, final: true });
  }
}

/** A timer that resolves SLOW once, and can be cleared so it keeps no event loop alive. */
interface Deadline {
  promise: Promise<typeof SLOW>;
  clear(): void;
}

function startDeadline(ms: number): Deadline {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<typeof SLOW>((resolve) => {
    timer = setTimeout(() => resolve(SLOW), ms);
  });
  return { promise, clear: () => clearTimeout(timer) };
}

/** A promise that rejects with the signal's reason when it aborts (never, without a signal). */
function abortion(signal: AbortSignal | undefined): { promise: Promise<never>; clear(): void } {
  if (!signal) return { promise: new Promise<never>(() => {}), clear: () => {} };
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, clear: () => signal.removeEventListener("abort", onAbort) };
}

/** Where the import stands. */
interface Tally {
  result: Omit<ImportSessionsResult, "durationMs">;
  sessions: number;
  messages: number;
}

/** `store.importSessions` for either store (see the module comment). The sync store runs it with
 * `runSyncYielding`, so it returns a promise there too and the event loop runs between steps. */
export function* importSessions(
  items: Iterable<ImportSessionInput> | AsyncIterable<ImportSessionInput>,
  options?: ImportSessionsOptions | null,
): Op<ImportSessionsResult> {
  const source = iteratorOf(items);
  const o = valid.options(options, "importSessions", ["onProgress", "signal"]);
  const onProgress = valid.callbackOption<(progress: ImportSessionsProgress) => void>(
    o.onProgress,
    "importSessions.onProgress",
  );
  const signal = valid.signalOption(o.signal, "importSessions.signal");
  yield* guard("writable", "importSessions");
  signal?.throwIfAborted();
  const started = yield* now();
  const patienceMs = ((yield STATE) as StorePolicy).patience.appendMs;
  const queue = new ImportQueue(source, signal);
  const tally: Tally = {
    result: { imported: 0, messages: 0, resumed: 0, skipped: [], unlinked: [], failed: [] },
    sessions: 0,
    messages: 0,
  };
  const memory: StepMemory = {};
  try {
    yield* queue.fill(IMPORT_START_CHUNK_MESSAGES);
    yield* paced<ImportStep>({
      step: (chunk) => importStep(queue, chunk, patienceMs, memory),
      after: (step) => settle(step, queue, tally, onProgress),
      startChunk: IMPORT_START_CHUNK_MESSAGES,
      minChunk: IMPORT_MIN_CHUNK_MESSAGES,
      maxChunk: IMPORT_MAX_CHUNK_MESSAGES,
      // Like deleteSessions: many short steps, and a waiting writer must find a gap after each.
      minPauseMs: PACE_MIN_PAUSE_MS,
      signal,
    });
  } finally {
    // An import stopped early (an abort, a store error) lets the input go (a file it reads). An
    // input still working on an item would make `return()` wait for it (an async generator
    // queues the call): it is told to stop, not waited for.
    if (queue.reading) stopUnawaited(source);
    else if (queue.more) yield* awaited(() => source.return?.());
  }
  const failed = tally.result.failed.concat(queue.refused).sort((a, b) => a.index - b.index);
  return { ...tally.result, failed, durationMs: (yield* now()) - started };
}

function stopUnawaited(source: Iterator<unknown> | AsyncIterator<unknown>): void {
  try {
    Promise.resolve(source.return?.()).catch(() => {});
  } catch {
    // Its own failure to stop is the input's business: the import's outcome stands.
  }
}

function iteratorOf(items: unknown): Iterator<unknown> | AsyncIterator<unknown> {
  const value = items as { [Symbol.iterator]?: unknown; [Symbol.asyncIterator]?: unknown } | null;
  const open =
    typeof value?.[Symbol.asyncIterator] === "function"
      ? value[Symbol.asyncIterator]
      : typeof value?.[Symbol.iterator] === "function" && typeof value !== "string"
        ? value[Symbol.iterator]
        : undefined;
  if (!open)
    throw new InvalidInputError("items", "expected an iterable or async iterable of sessions to import");
  return (open as () => Iterator<unknown> | AsyncIterator<unknown>).call(value);
}

function* importStep(
  queue: ImportQueue,
  chunk: number,
  patienceMs: number,
  memory: StepMemory,
): Op<ImportStep> {
  yield* queue.fill(chunk);
  const batch = queue.take(chunk);
  if (batch.length === 0) return { outcomes: [], waitedMs: 0, heldMs: 0, othersWrote: false };
  const failedIds = queue.failedIds;
  const { outcome, timing } = yield* timedWrite(() => importStepTx(batch, failedIds, patienceMs), memory);
  return { outcomes: outcome, ...timing };
}

/** Count a step's outcomes, pass waiting items on, report; true while the import goes on. */
// biome-ignore lint/correctness/useYield: an operation that needs no statement
function* settle(
  step: ImportStep,
  queue: ImportQueue,
  tally: Tally,
  onProgress: ((progress: ImportSessionsProgress) => void) | undefined,
): Op<boolean> {
  const result = tally.result;
  for (const outcome of step.outcomes) {
    const { item } = outcome;
    queue.settled(outcome);
    if (outcome.kind === "waiting") continue;
    tally.sessions++;
    tally.messages += item.size;
    if (outcome.kind === "skipped") result.skipped.push(item.id);
    else if (outcome.kind === "failed")
      result.failed.push({ index: item.index, sessionId: item.id, error: outcome.error });
    else if (outcome.kind === "imported") {
      result.imported++;
      result.messages += item.size;
      if (outcome.resumed) result.resumed++;
      if (outcome.unlinked) result.unlinked.push(item.id);
    }
  }
  const more = queue.more;
  // Items of the wrong shape never reach a step; they count as dealt with all the same.
  onProgress?.({ sessions: tally.sessions + queue.refused.length, messages: tally.messages, done: !more });
  return more;
}
