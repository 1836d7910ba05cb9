/**
 * A run's token usage as sessiondb usage, counted once. The Runner hands the session its
 * RunContext, whose `usage` adds up every model request of the run so far; each write of the
 * run records what was added since the previous one, so the rows of a run sum to its usage
 * exactly, however many times the run saves. OpenAI's counts overlap (input includes the
 * cached input, output the reasoning); sessiondb's input counters are disjoint, so input is
 * stored as input minus cached.
 */
import type { RunContext } from "@openai/agents-core";
import type { UsageInput } from "@sessiondb/core";

interface Counted {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

/** What each run context's usage was when this session last recorded it. */
export class RunUsage {
  readonly #seen = new WeakMap<object, Counted>();

  /** The usage `context` added since the last write with it (undefined when none), and `done`,
   * to call once the write is stored: a failed write leaves its usage for the next one. */
  since(context: RunContext<unknown> | undefined, model: string): { usage?: UsageInput; done(): void } {
    const usage = context?.usage;
    if (context === undefined || usage === undefined || usage === null) return { done() {} };
    const now: Counted = {
      input: whole(usage.inputTokens),
      cached: sum(usage.inputTokensDetails, "cached_tokens"),
      output: whole(usage.outputTokens),
      reasoning: sum(usage.outputTokensDetails, "reasoning_tokens"),
    };
    const before = this.#seen.get(context) ?? { input: 0, cached: 0, output: 0, reasoning: 0 };
    const done = () => void this.#seen.set(context, now);
    const d = (k: keyof Counted) => Math.max(0, now[k] - before[k]);
    if (d("input") + d("cached") + d("output") + d("reasoning") === 0) return { done };
    return {
      usage: {
        model,
        inputTokens: Math.max(0, d("input") - d("cached")),
        cacheReadTokens: d("cached"),
        outputTokens: d("output"),
        reasoningTokens: d("reasoning"),
      },
      done,
    };
  }
}

function whole(n: unknown): number {
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** A detail counter over the SDK's per-request detail records (an array, or one record). */
function sum(details: unknown, key: string): number {
  const list = Array.isArray(details) ? details : details ? [details] : [];
  return list.reduce((total: number, d) => total + whole((d as Record<string, unknown> | null)?.[key]), 0);
}
