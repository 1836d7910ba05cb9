/**
 * The model checker's model: a plain in-memory picture of what the Store promises (core README,
 * "The Store", "Messages from outside", "Full-text search"), with no SQL in it. Every write is a
 * function from one state to the next that either succeeds or names the error code the Store
 * must answer with; the checker (model-check.ts) runs each operation on both and compares.
 */
import type { Json, Role } from "@sessiondb/core";

export interface ModelMessage {
  id: number;
  sessionId: string;
  role: Role;
  content: string | null;
  toolName: string | null;
  toolCallId: string | null;
  toolCalls: Json[] | null;
  timestamp: number;
  active: boolean;
  externalId: string | null;
  original: { format: string; value: Json } | null;
}

export interface ModelUsage {
  model: string;
  callCount: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface ModelSession {
  id: string;
  source: string;
  title: string | null;
  parentSessionId: string | null;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  lastActivityAt: number | null;
  inputTokens: number;
  outputTokens: number;
  estimatedCostUsd: number;
  archived: boolean;
  pinned: boolean;
  usage: ModelUsage[];
}

export interface ModelState {
  sessions: Map<string, ModelSession>;
  /** Every stored row, inactive ones included, in id order. */
  messages: ModelMessage[];
  /** The smallest id a new row may get: AUTOINCREMENT ids only grow, but need not be
   * consecutive (a row skipped by its external id may use one up), so the model guesses ids from
   * here and adopts the store's once it has answered (`adoptIds`). */
  nextId: number;
  /** A backfill window is pending (startFtsBackfill until the step that finishes it). */
  backfilling: boolean;
}

/** What a model transition says the Store must do: succeed with a value, or fail with a code. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; code: string };

export const fail = (code: string): Outcome<never> => ({ ok: false, code });
const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

export function emptyState(): ModelState {
  return { sessions: new Map(), messages: [], nextId: 1, backfilling: false };
}

/** A deep copy, for transactions (rolled back by going on with the copy taken before). */
export function cloneState(state: ModelState): ModelState {
  return {
    sessions: new Map(
      [...state.sessions].map(([id, s]) => [id, { ...s, usage: s.usage.map((u) => ({ ...u })) }]),
    ),
    messages: state.messages.map((m) => ({ ...m })),
    nextId: state.nextId,
    backfilling: state.backfilling,
  };
}

/** Lone UTF-16 surrogates become U+FFFD before storage. */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/** The Store's rule for session ids: 1–256 characters, no control character, no lone surrogate. */
export function validSessionId(id: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the rule
  return id.length >= 1 && id.length <= 256 && !/[\u0000-\u001f\u007f]/.test(id) && wellFormed(id) === id;
}

export interface CreateInput {
  id: string;
  source: string;
  title: string | null;
  parentSessionId: string | null;
}

/** Whether `id` is `ancestor` or has it among its parents' chain (a stored circle ends the walk). */
function descendsFrom(state: ModelState, id: string, ancestor: string): boolean {
  const seen = new Set<string>();
  for (
    let at: string | null = id;
    at !== null && !seen.has(at);
    at = state.sessions.get(at)?.parentSessionId ?? null
  ) {
    if (at === ancestor) return true;
    seen.add(at);
  }
  return false;
}

/** createSession: an upsert that fills in only what the stored session lacks, but never a parent
 * that descends from it. */
export function createSession(state: ModelState, input: CreateInput, now: number): Outcome<string> {
  const parent = input.parentSessionId;
  if (!validSessionId(input.id) || parent === input.id || (parent !== null && !validSessionId(parent)))
    return fail("INVALID_INPUT");
  if (input.parentSessionId !== null && !state.sessions.has(input.parentSessionId))
    return fail("SESSION_NOT_FOUND");
  const stored = state.sessions.get(input.id);
  if (stored && stored.parentSessionId === null && parent !== null && descendsFrom(state, parent, input.id))
    return fail("INVALID_INPUT");
  if (stored) {
    stored.title ??= input.title;
    stored.parentSessionId ??= input.parentSessionId;
    return ok(input.id);
  }
  state.sessions.set(input.id, {
    id: input.id,
    source: input.source,
    title: input.title,
    parentSessionId: input.parentSessionId,
    startedAt: now,
    endedAt: null,
    endReason: null,
    lastActivityAt: null,
    inputTokens: 0,
    outputTokens: 0,
    estimatedCostUsd: 0,
    archived: false,
    pinned: false,
    usage: [],
  });
  return ok(input.id);
}

export interface AppendInput {
  role: Role;
  content: string | null;
  toolName: string | null;
  toolCallId: string | null;
  toolCalls: Json[] | null;
  timestamp: number | null;
  active: boolean;
  externalId: string | null;
  original: { format: string; value: Json } | null;
  usage: { model: string; inputTokens: number; outputTokens: number; costUsd: number } | null;
  /** Refused by validation (a role that is none): the whole call stores nothing. */
  bad: boolean;
}

/** appendMessages: all or nothing; a known externalId answers the stored id and adds nothing. */
export function appendMessages(
  state: ModelState,
  sessionId: string,
  list: readonly AppendInput[],
  now: number,
): Outcome<number[]> {
  if (!validSessionId(sessionId)) return fail("INVALID_INPUT");
  if (list.some((m) => m.bad || (m.externalId !== null && m.externalId.length > 500)))
    return fail("INVALID_INPUT");
  const session = state.sessions.get(sessionId);
  if (!session) return fail("SESSION_NOT_FOUND");
  const ids: number[] = [];
  for (const input of list) {
    const known =
      input.externalId === null
        ? undefined
        : state.messages.find((m) => m.sessionId === sessionId && m.externalId === input.externalId);
    if (known) {
      ids.push(known.id);
      continue;
    }
    const timestamp = input.timestamp ?? now;
    const message: ModelMessage = {
      id: state.nextId++,
      sessionId,
      role: input.role,
      content: input.content === null ? null : wellFormed(input.content),
      toolName: input.toolName,
      toolCallId: input.toolCallId,
      toolCalls: input.toolCalls,
      timestamp,
      active: input.active,
      externalId: input.externalId,
      original: input.original,
    };
    state.messages.push(message);
    ids.push(message.id);
    session.lastActivityAt = Math.max(session.lastActivityAt ?? timestamp, timestamp);
    if (input.usage) addUsage(session, input.usage);
  }
  return ok(ids);
}

export interface MessagePatchInput {
  content?: string | null;
  toolCalls?: Json[] | null;
  active?: boolean;
  original?: { format: string; value: Json } | null;
}

export function updateMessage(
  state: ModelState,
  sessionId: string,
  messageId: number,
  patch: MessagePatchInput,
): Outcome<undefined> {
  const message = state.messages.find((m) => m.id === messageId && m.sessionId === sessionId);
  if (!message) return fail(state.sessions.has(sessionId) ? "INVALID_INPUT" : "SESSION_NOT_FOUND");
  if (patch.content !== undefined)
    message.content = patch.content === null ? null : wellFormed(patch.content);
  if (patch.toolCalls !== undefined) message.toolCalls = patch.toolCalls;
  if (patch.active !== undefined) message.active = patch.active;
  if (patch.original !== undefined) message.original = patch.original;
  return ok(undefined);
}

export function recordUsage(
  state: ModelState,
  sessionId: string,
  usage: NonNullable<AppendInput["usage"]>,
): Outcome<undefined> {
  const session = state.sessions.get(sessionId);
  if (!session) return fail("SESSION_NOT_FOUND");
  addUsage(session, usage);
  return ok(undefined);
}

function addUsage(session: ModelSession, usage: NonNullable<AppendInput["usage"]>): void {
  session.inputTokens += usage.inputTokens;
  session.outputTokens += usage.outputTokens;
  session.estimatedCostUsd += usage.costUsd;
  let row = session.usage.find((u) => u.model === usage.model);
  if (!row) {
    row = { model: usage.model, callCount: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    session.usage.push(row);
    session.usage.sort((a, b) => (a.model < b.model ? -1 : 1));
  }
  row.callCount++;
  row.inputTokens += usage.inputTokens;
  row.outputTokens += usage.outputTokens;
  row.costUsd += usage.costUsd;
}

/** Session-level writes that answer the session: rename, archive/pin, end (the first end wins). */
export function patchSession(
  state: ModelState,
  sessionId: string,
  change: (s: ModelSession) => void,
): Outcome<ModelSession> {
  const session = state.sessions.get(sessionId);
  if (!session) return fail("SESSION_NOT_FOUND");
  change(session);
  return ok(session);
}

/** deleteSession: the rows, usage and session go; children lose their parent. */
export function deleteSession(state: ModelState, sessionId: string): Outcome<number> {
  if (!state.sessions.has(sessionId)) return fail("SESSION_NOT_FOUND");
  return ok(removeSession(state, sessionId));
}

export function removeSession(state: ModelState, sessionId: string): number {
  const before = state.messages.length;
  state.messages = state.messages.filter((m) => m.sessionId !== sessionId);
  state.sessions.delete(sessionId);
  for (const s of state.sessions.values()) if (s.parentSessionId === sessionId) s.parentSessionId = null;
  return before - state.messages.length;
}

/** deleteSessions: each distinct id whole; unknown ones reported in order, once; an id that is
 * none refuses the whole call. */
export function deleteSessions(
  state: ModelState,
  ids: readonly string[],
): Outcome<{ sessions: number; messages: number; notFound: string[] }> {
  if (!ids.every(validSessionId)) return fail("INVALID_INPUT");
  const result = { sessions: 0, messages: 0, notFound: [] as string[] };
  for (const id of new Set(ids)) {
    if (!state.sessions.has(id)) {
      result.notFound.push(id);
      continue;
    }
    result.sessions++;
    result.messages += removeSession(state, id);
  }
  return ok(result);
}

/** The counters a session reads back with, from its active rows. */
export function sessionCounters(
  state: ModelState,
  sessionId: string,
): { messageCount: number; toolCallCount: number } {
  let messageCount = 0;
  let toolCallCount = 0;
  for (const m of state.messages) {
    if (m.sessionId !== sessionId || !m.active) continue;
    messageCount++;
    toolCallCount += m.toolCalls?.length ?? 0;
  }
  return { messageCount, toolCallCount };
}

/**
 * Take the ids the store gave the rows an append added: `guessed` is what the model answered
 * (ids from `bound`, the state's `nextId` before the append, are its guesses for new rows; the
 * others are stored rows', which must come back exactly). When the store's ids are a valid
 * choice — each new row's id at least `bound`, in increasing order, one per guess — the model's
 * rows take them; the expected answer, with them, is returned for the comparison.
 */
export function adoptIds(
  state: ModelState,
  bound: number,
  guessed: readonly number[],
  actual: unknown,
): number[] {
  if (!Array.isArray(actual) || actual.length !== guessed.length) return [...guessed];
  const map = new Map<number, number>();
  let last = bound - 1;
  for (let i = 0; i < guessed.length; i++) {
    const guess = guessed[i] as number;
    const given = actual[i];
    if (guess < bound || typeof given !== "number") continue;
    const known = map.get(guess);
    if (known !== undefined) continue;
    if (given <= last) return [...guessed];
    map.set(guess, given);
    last = given;
  }
  for (const m of state.messages) m.id = map.get(m.id) ?? m.id;
  if (map.size > 0) state.nextId = last + 1;
  return guessed.map((id) => map.get(id) ?? id);
}
