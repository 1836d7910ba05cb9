/**
 * The model checker's operations: plain JSON values (so a failing sequence prints as it is and
 * reads back in a test), drawn from a seeded generator. Each operation names sessions from a small
 * pool and messages by position, so removing operations while shrinking always leaves a sequence
 * that runs: an operation on a session that is not there is a case of its own (SESSION_NOT_FOUND).
 */
import type { Json, Role } from "@sessiondb/core";
import type { Query, SearchCase } from "./model-search.js";
import type { AppendInput, MessagePatchInput } from "./model-state.js";

/** Valid ids, one of them astral, and one the Store must refuse (a control character). */
export const SESSION_IDS = ["a", "b", "s😀", "c"] as const;
const BAD_SESSION_ID = "bad\u0001id";

/** No word is a substring of another, nor of a tool name or tool call (see model-search.ts). */
export const VOCABULARY = ["amber", "basil", "cedar", "delta", "ember", "fjord"] as const;
/** Terms of nothing searchable (symbols, emoji, format characters): dropped from a query on
 * every route. */
const NOTHING_TERMS = ["🚀", "++", "->", "\u200B", "\u2060", "\u00AD"] as const;
/** Substrings of the vocabulary for substring and LIKE searches ("mbe" is in two words). */
const FRAGMENTS = ["mbe", "asi", "eda", "jor", "elt", "de", "er"] as const;

export type WriteOp =
  | { op: "create"; sid: string; parent: string | null; title: string | null }
  | { op: "append"; sid: string; messages: AppendInput[]; single: boolean }
  | { op: "update"; sid: string; pick: number; patch: MessagePatchInput }
  | { op: "end"; sid: string; reason: string; at: number | null }
  | { op: "rename"; sid: string; title: string | null }
  | { op: "archive"; sid: string; archived: boolean; pinned: boolean }
  | { op: "delete"; sid: string }
  | { op: "usage"; sid: string; usage: NonNullable<AppendInput["usage"]> };

export type FtsAction = "rebuild" | "start" | "step" | "backfill" | "optimize" | "tick" | "vacuum";

export type ModelOp =
  | WriteOp
  | { op: "prune"; sids: string[] }
  | { op: "search"; search: SearchCase }
  | { op: "read"; sid: string; last: number; after: number }
  | { op: "list"; includeArchived: boolean }
  | { op: "fts"; action: FtsAction; chunk: number }
  | { op: "tx"; ops: WriteOp[]; throws: boolean }
  | { op: "reopen" };

/** mulberry32: a small seeded generator, the same sequence on every runtime. */
export class Random {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** A sequence of `length` operations from `seed`, beginning with a session. */
export function generate(seed: number, length: number): ModelOp[] {
  const r = new Random(seed);
  const first: ModelOp = { op: "create", sid: "a", parent: null, title: null };
  return [first, ...Array.from({ length: length - 1 }, () => operation(r))];
}

/** Mostly the first three (so most calls find their session), now and then "c" (mostly never
 * created) or the refused id. */
function sid(r: Random): string {
  const roll = r.int(100);
  if (roll < 3) return BAD_SESSION_ID;
  if (roll < 8) return "c";
  return r.pick(SESSION_IDS.slice(0, 3));
}

function operation(r: Random): ModelOp {
  const roll = r.int(100);
  if (roll < 8) return createOp(r);
  if (roll < 38) return appendOp(r);
  if (roll < 58) return writeOp(r);
  if (roll < 60)
    return {
      op: "prune",
      sids: Array.from({ length: 1 + r.int(3) }, () => (r.chance(0.2) ? "gone" : sid(r))),
    };
  if (roll < 76) return { op: "search", search: searchCase(r) };
  if (roll < 82) return { op: "read", sid: sid(r), last: r.int(4), after: r.int(1000) };
  if (roll < 84) return { op: "list", includeArchived: r.chance(0.5) };
  if (roll < 92) {
    const action = r.pick<FtsAction>([
      "rebuild",
      "start",
      "start",
      "step",
      "step",
      "step",
      "step",
      "backfill",
      "optimize",
    ]);
    return { op: "fts", action, chunk: 1 + r.int(4) };
  }
  if (roll < 98)
    return {
      op: "tx",
      ops: Array.from({ length: 1 + r.int(4) }, () => (r.chance(0.5) ? appendOp(r) : writeOp(r))),
      throws: r.chance(0.5),
    };
  return { op: "reopen" };
}

function createOp(r: Random): WriteOp {
  return {
    op: "create",
    sid: sid(r),
    parent: r.chance(0.3) ? sid(r) : null,
    title: r.chance(0.3) ? "t😀" : null,
  };
}

function appendOp(r: Random): WriteOp {
  const single = r.chance(0.4);
  const count = single ? 1 : 1 + r.int(6);
  const messages = Array.from({ length: count }, () => message(r));
  return { op: "append", sid: sid(r), messages, single };
}

function writeOp(r: Random): WriteOp {
  const s = sid(r);
  const roll = r.int(100);
  if (roll < 35) return { op: "update", sid: s, pick: r.chance(0.1) ? -1 : r.int(1000), patch: patch(r) };
  if (roll < 45)
    return {
      op: "end",
      sid: s,
      reason: r.pick(["done", "killed\u0000"]),
      at: r.chance(0.5) ? 1000 + r.int(100) : null,
    };
  if (roll < 55)
    return { op: "rename", sid: s, title: r.chance(0.3) ? null : r.pick(["plan", "🚀 \u0000x"]) };
  if (roll < 65) return { op: "archive", sid: s, archived: r.chance(0.5), pinned: r.chance(0.5) };
  if (roll < 70) return { op: "delete", sid: s };
  if (roll < 85) return { op: "usage", sid: s, usage: usage(r) };
  return createOp(r);
}

function usage(r: Random): NonNullable<AppendInput["usage"]> {
  return {
    model: r.pick(["m1", "m2"]),
    inputTokens: r.int(1000),
    outputTokens: r.int(100),
    costUsd: r.int(8) * 0.25,
  };
}

/** Content: vocabulary words between separators (space, NUL, an emoji), sometimes capitalised;
 * sometimes huge (past the tool prefix), sometimes with a lone surrogate, sometimes none. */
function content(r: Random, role: Role): string | null {
  const kind = r.int(20);
  if (kind === 0) return null;
  const word = () => {
    const w = r.pick(VOCABULARY);
    return r.chance(0.2) ? w[0]?.toUpperCase() + w.slice(1) : w;
  };
  if (kind <= 2) {
    // ASCII only, so the tool prefix (8192 characters) is the same in characters and bytes.
    const words = Array.from({ length: 1500 + r.int(1500) }, word);
    return words.join(" ");
  }
  const separators =
    role === "tool" ? [" ", " \u0000 ", "\u0000", ", "] : [" ", " 😀 ", " \u0000 ", "\u{1F680}", ", "];
  let text = word();
  for (let n = r.int(5); n > 0; n--) text += r.pick(separators) + word();
  if (kind === 3) text += " \uD83D";
  return text;
}

function message(r: Random): AppendInput {
  const role = r.pick<Role>(["user", "assistant", "assistant", "tool", "system"]);
  const calls: Json[] | null =
    role === "assistant" && r.chance(0.5) ? [{ id: "call1", name: "shell" }] : null;
  return {
    role,
    content: content(r, role),
    toolName: role === "tool" ? r.pick(["shell", "grep"]) : null,
    toolCallId: role === "tool" ? "call1" : null,
    toolCalls: calls,
    timestamp: r.chance(0.3) ? 1000 + r.int(100) : null,
    active: !r.chance(0.15),
    externalId: r.chance(0.4) ? r.pick(["e1", "e2", "e3"]) : r.chance(0.02) ? "x".repeat(501) : null,
    original: r.chance(0.3)
      ? { format: "model", value: { n: r.int(9), text: "😀\u0000", nested: [null, true] } }
      : null,
    usage: r.chance(0.2) ? usage(r) : null,
    bad: r.chance(0.02),
  };
}

function patch(r: Random): MessagePatchInput {
  const out: MessagePatchInput = {};
  if (r.chance(0.5)) out.content = content(r, "user");
  if (r.chance(0.3)) out.toolCalls = r.chance(0.5) ? null : [{ id: "call1" }, { id: "call2" }];
  if (r.chance(0.3)) out.active = r.chance(0.5);
  if (r.chance(0.2)) out.original = { format: "model", value: ["patched"] };
  return out;
}

function searchCase(r: Random): SearchCase {
  const kind = r.pick(["word", "word", "word", "substring", "roles"] as const);
  const term = () => ({ text: kind === "word" ? r.pick(VOCABULARY) : r.pick(FRAGMENTS), phrase: false });
  let query: Query;
  const shape = r.int(5);
  if (shape === 0) query = { kind: "or", left: term(), right: term() };
  else if (shape === 1) query = { kind: "not", left: term(), right: term() };
  else if (shape === 2 && kind === "word")
    query = { kind: "and", terms: [{ text: `${r.pick(VOCABULARY)} ${r.pick(VOCABULARY)}`, phrase: true }] };
  else query = { kind: "and", terms: Array.from({ length: 1 + r.int(2) }, term) };
  if (query.kind === "and" && r.chance(0.2)) query.terms.push({ text: r.pick(NOTHING_TERMS), phrase: false });
  const filters = {
    ...(r.chance(0.2) ? { sessionId: r.pick(SESSION_IDS) } : {}),
    ...(r.chance(0.2) ? { since: r.pick([1050, 2010]) } : {}),
  };
  if (kind !== "roles") return { kind, query, ...filters };
  return { kind, query, roles: r.chance(0.5) ? ["tool"] : ["user", "tool"], ...filters };
}
