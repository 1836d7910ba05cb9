/**
 * Codex's token counts as usage counted once. A rollout's `token_count` events carry the
 * session's cumulative totals (`info.total_token_usage`), repeated whenever Codex reports them
 * (the same totals can come twice in a row), so each event's usage is its totals minus the
 * previous event's: summed over a file it is exactly the last totals, never a multiple.
 *
 * The OpenAI counts overlap: `input_tokens` includes the cached input and `output_tokens` the
 * reasoning. sessiondb's counters are disjoint for input (input, cache read, cache write are
 * priced apart), so input is stored as input minus cached; output stays as counted and
 * reasoning is the part of it that was reasoning.
 */
import type { Json, UsageInput } from "@sessiondb/core";
import { stateCount, stateObject } from "../mapper-state.js";

/** The counters of a Codex `TokenUsage`, all non-negative integers. */
interface Totals {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

const ZERO: Totals = { input: 0, cached: 0, output: 0, reasoning: 0 };

/** Turns one file's cumulative totals into per-event differences. */
export class TokenTotals {
  #last: Totals = ZERO;

  /** The last totals, for a mapper that goes on later (see ItemMapper.save). */
  save(): Json {
    return { ...this.#last };
  }

  restore(state: Json | undefined): void {
    const s = stateObject(state ?? null, "token totals");
    this.#last = {
      input: stateCount(s.input, "input total"),
      cached: stateCount(s.cached, "cached total"),
      output: stateCount(s.output, "output total"),
      reasoning: stateCount(s.reasoning, "reasoning total"),
    };
  }

  /** The usage a `token_count` payload adds, or undefined when it adds none. */
  next(payload: unknown, model: string, provider: string | undefined): UsageInput | undefined {
    const totals = readTotals(payload);
    if (totals === undefined) return undefined;
    // Totals that went down started a new count (a resumed session that lost its counter):
    // the new totals are all new, rather than a negative difference.
    const base = (Object.keys(totals) as (keyof Totals)[]).some((k) => totals[k] < this.#last[k])
      ? ZERO
      : this.#last;
    this.#last = totals;
    const d = {
      input: totals.input - base.input,
      cached: totals.cached - base.cached,
      output: totals.output - base.output,
      reasoning: totals.reasoning - base.reasoning,
    };
    if (d.input === 0 && d.cached === 0 && d.output === 0 && d.reasoning === 0) return undefined;
    const usage: UsageInput = {
      model,
      inputTokens: Math.max(0, d.input - d.cached),
      cacheReadTokens: d.cached,
      outputTokens: d.output,
      reasoningTokens: d.reasoning,
    };
    if (provider !== undefined) usage.provider = provider;
    return usage;
  }
}

function readTotals(payload: unknown): Totals | undefined {
  const total = (payload as { info?: { total_token_usage?: unknown } } | null)?.info?.total_token_usage;
  if (total === null || typeof total !== "object") return undefined;
  const t = total as { [key: string]: unknown };
  const n = (v: unknown) => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : 0);
  return {
    input: n(t.input_tokens),
    cached: n(t.cached_input_tokens),
    output: n(t.output_tokens),
    reasoning: n(t.reasoning_output_tokens),
  };
}
