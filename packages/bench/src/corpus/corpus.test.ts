import { describe, expect, it } from "vitest";
import {
  buildStore,
  type CorpusTarget,
  codePoints,
  contentChars,
  generateCorpus,
  TOOL_PREFIX_CHARS,
} from "./index.js";
import { Prng } from "./prng.js";

const all = (seed: number, messages: number) => [...generateCorpus({ seed, messages })];

describe("Prng", () => {
  it("is a pure function of the seed", () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const c = new Prng(43);
    const xs = Array.from({ length: 100 }, () => a.nextU32());
    expect(Array.from({ length: 100 }, () => b.nextU32())).toEqual(xs);
    expect(Array.from({ length: 100 }, () => c.nextU32())).not.toEqual(xs);
  });

  it("is roughly uniform", () => {
    const rng = new Prng(7);
    const buckets = new Array(10).fill(0);
    for (let i = 0; i < 100_000; i++) buckets[Math.floor(rng.next() * 10)]++;
    for (const n of buckets) expect(Math.abs(n - 10_000)).toBeLessThan(500);
  });
});

describe("generateCorpus", () => {
  it("gives identical output for the same seed and different output for another", () => {
    const a = JSON.stringify(all(1234, 3000));
    expect(JSON.stringify(all(1234, 3000))).toBe(a);
    expect(JSON.stringify(all(1235, 3000))).not.toBe(a);
  });

  it("yields exactly the requested number of messages, and a prefix for a smaller size", () => {
    for (const n of [0, 1, 2, 17, 1000]) {
      expect(all(5, n).reduce((sum, s) => sum + s.messages.length, 0)).toBe(n);
    }
    // Sessions are generated from independent streams, so a smaller corpus is a prefix.
    const big = all(9, 5000);
    const small = all(9, 1000);
    expect(JSON.stringify(small.slice(0, -1))).toBe(JSON.stringify(big.slice(0, small.length - 1)));
  });

  const corpus = all(20_260_101, 20_000);
  const messages = corpus.flatMap((s) => s.messages);

  it("mixes roles in agent-like proportions", () => {
    const share = (role: string) => messages.filter((m) => m.role === role).length / messages.length;
    expect(share("system")).toBeGreaterThan(0.01);
    expect(share("system")).toBeLessThan(0.06);
    expect(share("user")).toBeGreaterThan(0.08);
    expect(share("user")).toBeLessThan(0.2);
    expect(share("assistant")).toBeGreaterThan(0.35);
    expect(share("assistant")).toBeLessThan(0.55);
    expect(share("tool")).toBeGreaterThan(0.3);
    expect(share("tool")).toBeLessThan(0.5);
  });

  it("has sessions of varying length", () => {
    const lengths = corpus.map((s) => s.messages.length);
    expect(Math.min(...lengths)).toBeLessThanOrEqual(5);
    expect(Math.max(...lengths)).toBeGreaterThan(150);
    expect(new Set(lengths).size).toBeGreaterThan(50);
  });

  it("gives tool output a heavy tail: many above the 8192 prefix, some above 100 KB", () => {
    const tool = messages.filter((m) => m.role === "tool").map(contentChars);
    const above = tool.filter((n) => n > TOOL_PREFIX_CHARS).length / tool.length;
    expect(above).toBeGreaterThan(0.07);
    expect(above).toBeLessThan(0.25);
    expect(tool.filter((n) => n > 100_000).length).toBeGreaterThan(5);
    const sorted = [...tool].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(3000); // the median stays small
  });

  it("has assistant tool calls as JSON with matching tool results", () => {
    const withCalls = messages.filter((m) => m.role === "assistant" && m.toolCalls);
    expect(withCalls.length).toBeGreaterThan(messages.length * 0.2);
    const ids = new Set(withCalls.flatMap((m) => (m.toolCalls ?? []).map((c) => (c as { id: string }).id)));
    for (const m of messages.filter((x) => x.role === "tool"))
      expect(ids.has(m.toolCallId as string)).toBe(true);
    for (const m of withCalls) {
      for (const c of m.toolCalls as Array<{ function: { arguments: string } }>)
        JSON.parse(c.function.arguments);
    }
  });

  it("contains code, logs, stack traces, JSON, CJK and other scripts", () => {
    const text = messages
      .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")))
      .join("\n");
    expect(text).toMatch(/export function \w+/);
    expect(text).toMatch(/\d{4}-\d\d-\d\dT[\d:.]+Z ERROR/);
    expect(text).toMatch(/Traceback \(most recent call last\)| {4}at \w+/);
    expect(text).toMatch(/"items": \[/);
    expect(text).toMatch(/[\u4e00-\u9fff]{3}/);
    expect(text).toMatch(/[\u0400-\u04ff]{4}/);
    expect(text).toMatch(/\p{Extended_Pictographic}/u);
  });

  it("places unique tokens and reports where they are", () => {
    const tokens = corpus.flatMap((s) => s.tokens.map((t) => ({ ...t, message: s.messages[t.index] })));
    expect(tokens.length).toBeGreaterThan(messages.length * 0.04);
    expect(new Set(tokens.map((t) => t.token)).size).toBe(tokens.length);
    const text = messages
      .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
      .join("\n");
    const occurrences = new Map<string, number>();
    for (const [found] of text.matchAll(/tk[0-9a-z]{14}/g))
      occurrences.set(found, (occurrences.get(found) ?? 0) + 1);
    let hidden = 0;
    for (const t of tokens) {
      const content = t.message?.content;
      const body = typeof content === "string" ? content : JSON.stringify(content);
      const at = body.indexOf(t.token);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(occurrences.get(t.token)).toBe(1); // exactly one occurrence in the whole corpus
      expect(t.role).toBe(t.message?.role);
      if (t.role === "tool")
        expect(t.indexedByFts).toBe(codePoints(body, at + t.token.length) <= TOOL_PREFIX_CHARS);
      if (!t.indexedByFts) hidden++;
    }
    expect(hidden).toBeGreaterThan(0); // some tokens only a tool-role (LIKE) search can find
  });
});

describe("buildStore", () => {
  it("creates each session and appends its messages in batches, reporting message ids", () => {
    const calls: string[] = [];
    let nextId = 1;
    const target: CorpusTarget = {
      createSession: (input) => calls.push(`session ${input.id}`),
      appendMessages: (id, batch) => {
        calls.push(`append ${id} ${batch.length}`);
        return batch.map(() => nextId++);
      },
    };
    const summary = buildStore(target, { seed: 3, messages: 500, batch: 10 });
    expect(summary.messages).toBe(500);
    expect(nextId - 1).toBe(500);
    expect(calls.filter((c) => c.startsWith("session")).length).toBe(summary.sessions);
    expect(calls.every((c) => !c.startsWith("append") || Number(c.split(" ")[2]) <= 10)).toBe(true);
    const expected = all(3, 500).flatMap((s, _i, list) => {
      const before = list.slice(0, list.indexOf(s)).reduce((sum, x) => sum + x.messages.length, 0);
      return s.tokens.map((t) => before + t.index + 1);
    });
    expect(summary.tokens.map((t) => t.messageId)).toEqual(expected);
  });

  it("groups whole sessions into transactions of at least perTransaction messages", () => {
    const log: string[] = [];
    let depth = 0;
    let nextId = 1;
    const target: CorpusTarget = {
      createSession: (input) => log.push(`${depth} session ${input.id}`),
      appendMessages: (_id, batch) => {
        log.push(`${depth} append ${batch.length}`);
        return batch.map(() => nextId++);
      },
      transaction: (fn) => {
        log.push("begin");
        depth++;
        try {
          return fn();
        } finally {
          depth--;
          log.push("commit");
        }
      },
    };
    const grouped = buildStore(target, { seed: 3, messages: 500, batch: 10, perTransaction: 100 });
    const calls = [...log];
    nextId = 1;
    const plain = buildStore(
      { createSession: target.createSession, appendMessages: target.appendMessages },
      { seed: 3, messages: 500, batch: 10 },
    );
    expect(grouped).toEqual(plain);
    expect(calls.every((line) => line === "begin" || line === "commit" || line.startsWith("1 "))).toBe(true);
    const commits = calls.filter((line) => line === "commit").length;
    expect(commits).toBeGreaterThan(1);
    expect(commits).toBeLessThanOrEqual(5); // ≥ 100 messages each, whole sessions
    expect(() =>
      buildStore({ ...target, transaction: undefined }, { seed: 3, messages: 10, perTransaction: 5 }),
    ).toThrow(/perTransaction/);
  });
});
