/**
 * The model checker's writes: each operation that changes the store as a call on the store and a
 * transition on the model, made together so both name the same rows; and how answers compare.
 */
import type { Message, Session } from "@sessiondb/core";
import { assert, type ConformanceStore } from "./harness.js";
import type { WriteOp } from "./model-ops.js";
import type { ModelState, Outcome } from "./model-state.js";
import * as model from "./model-state.js";

/** What a store call did: its value, or the code of what it threw or rejected with. */
export async function outcomeOf<T>(call: () => unknown): Promise<Outcome<T>> {
  try {
    return { ok: true, value: (await call()) as T };
  } catch (error) {
    return { ok: false, code: codeOf(error) };
  }
}

export function same<T>(actual: Outcome<T>, expected: Outcome<T>, what: string): void {
  if (!expected.ok || !actual.ok) {
    assert.deepEqual(actual, expected, `${what}: the store answered ${JSON.stringify(actual)}`);
  } else {
    assert.deepEqual(actual.value, expected.value, what);
  }
}

export const sessionView = (state: ModelState, s: model.ModelSession): Session => ({
  id: s.id,
  source: s.source,
  model: null,
  modelConfig: null,
  title: s.title,
  parentSessionId: s.parentSessionId,
  startedAt: s.startedAt,
  endedAt: s.endedAt,
  endReason: s.endReason,
  lastActivityAt: s.lastActivityAt,
  ...model.sessionCounters(state, s.id),
  inputTokens: s.inputTokens,
  outputTokens: s.outputTokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  estimatedCostUsd: s.estimatedCostUsd,
  cwd: null,
  archived: s.archived,
  pinned: s.pinned,
  metadata: null,
});

export const messageView = (m: model.ModelMessage): Message => ({
  ...m,
  tokenCount: null,
  finishReason: null,
  reasoning: null,
  metadata: null,
});

const viewed = (state: ModelState, o: Outcome<model.ModelSession>): Outcome<Session> =>
  o.ok ? { ok: true, value: sessionView(state, o.value) } : o;

/** The message an update names: by position among the session's rows, one in ten among every
 * stored row (mostly another session's), or one no session has. */
function pickedId(state: ModelState, sid: string, pick: number): number {
  const rows = pick % 10 === 0 ? state.messages : state.messages.filter((m) => m.sessionId === sid);
  return pick < 0 || rows.length === 0 ? 999_999 : (rows[pick % rows.length]?.id as number);
}

/** `f` of a call's value: at once for a sync store's value, after it for a promise. */
function thenDo<T, U>(value: T | Promise<T>, f: (v: T) => U): U | Promise<U> {
  return typeof (value as { then?: unknown })?.then === "function"
    ? (value as Promise<T>).then(f)
    : f(value as T);
}

/** A write's call on the store (its raw value or promise) and its transition on the model. */
export function write(op: WriteOp, state: ModelState, now: number) {
  const refused = !model.validSessionId(op.sid);
  const expect = <T>(o: () => Outcome<T>): Outcome<T> => (refused ? model.fail("INVALID_INPUT") : o());
  switch (op.op) {
    case "create": {
      const input = { id: op.sid, source: "model", title: op.title, parentSessionId: op.parent };
      return {
        call: (s: ConformanceStore) => s.createSession(input),
        apply: () => {
          const created = expect(() => model.createSession(state, input, now));
          return created.ok
            ? viewed(state, { ok: true, value: state.sessions.get(op.sid) as model.ModelSession })
            : created;
        },
      };
    }
    case "append": {
      const inputs = op.messages.map(({ bad, usage, timestamp, ...m }) => ({
        ...m,
        role: bad ? ("bogus" as never) : m.role,
        ...(timestamp === null ? {} : { timestamp }),
        usage,
      }));
      return {
        call: (s: ConformanceStore) =>
          op.single
            ? thenDo(s.appendMessage(op.sid, inputs[0] as never), (id) => [id])
            : s.appendMessages(op.sid, inputs),
        apply: (actual?: unknown): Outcome<unknown> => {
          const bound = state.nextId;
          const guessed = expect(() => model.appendMessages(state, op.sid, op.messages, now));
          if (!guessed.ok) return guessed;
          const answered = (actual as Outcome<unknown> | undefined)?.ok
            ? (actual as { value: unknown }).value
            : undefined;
          return { ok: true, value: model.adoptIds(state, bound, guessed.value, answered) };
        },
      };
    }
    case "update": {
      const id = pickedId(state, op.sid, op.pick);
      return {
        call: (s: ConformanceStore) => s.updateMessage(op.sid, id, op.patch),
        apply: () => expect(() => model.updateMessage(state, op.sid, id, op.patch)),
      };
    }
    case "end":
      return {
        call: (s: ConformanceStore) => s.endSession(op.sid, op.reason, op.at === null ? null : { at: op.at }),
        apply: () =>
          viewed(
            state,
            expect(() =>
              model.patchSession(state, op.sid, (x) => {
                x.endedAt ??= op.at ?? now;
                x.endReason ??= op.reason;
              }),
            ),
          ),
      };
    case "rename":
      return {
        call: (s: ConformanceStore) => s.updateSession(op.sid, { title: op.title }),
        apply: () =>
          viewed(
            state,
            expect(() =>
              model.patchSession(state, op.sid, (x) => {
                x.title = op.title;
              }),
            ),
          ),
      };
    case "archive":
      return {
        call: (s: ConformanceStore) => s.updateSession(op.sid, { archived: op.archived, pinned: op.pinned }),
        apply: () =>
          viewed(
            state,
            expect(() =>
              model.patchSession(state, op.sid, (x) => {
                x.archived = op.archived;
                x.pinned = op.pinned;
              }),
            ),
          ),
      };
    case "delete":
      return {
        call: (s: ConformanceStore) => s.deleteSession(op.sid),
        apply: () => expect(() => model.deleteSession(state, op.sid)),
      };
    case "usage":
      return {
        call: (s: ConformanceStore) => s.recordUsage(op.sid, op.usage),
        apply: () => expect(() => model.recordUsage(state, op.sid, op.usage)),
      };
  }
}

/** `outcomeOf`, at once for a sync store's call (its transaction body must not await). */
export function outcomeNow<T>(call: () => unknown): Outcome<T> | Promise<Outcome<T>> {
  try {
    const value = call();
    return typeof (value as { then?: unknown })?.then === "function"
      ? outcomeOf<T>(() => value)
      : { ok: true, value: value as T };
  } catch (error) {
    return { ok: false, code: codeOf(error) };
  }
}

/** A sessiondb error's code; anything else thrown is told by its text. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : `not a SessionDbError: ${String(error)}`;
}
