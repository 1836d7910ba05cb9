/**
 * Claude Code's token usage counted once. An assistant response is written as one line per
 * content block (text, thinking, each tool_use), and every one of those lines repeats the
 * response's whole `message.usage`. The lines of one response share `message.id` and
 * `requestId` (ccusage's rule): the usage is taken from the first line of each pair only.
 * Anthropic's counters are disjoint (input excludes the cache reads and cache writes), as
 * sessiondb's are, so they map one to one.
 */
import type { Json, UsageInput } from "@sessiondb/core";
import { stateStrings } from "../mapper-state.js";

type Obj = { [key: string]: unknown };

/** Tracks the responses whose usage a file has already given. */
export class ResponseUsage {
  #seen = new Set<string>();

  /** The responses seen, for a mapper that goes on later (see ItemMapper.save). */
  save(): Json {
    return [...this.#seen];
  }

  restore(state: Json | undefined): void {
    this.#seen = new Set(stateStrings(state, "usage keys"));
  }

  /** The usage an assistant line adds: its `message.usage` the first time its response is
   * seen, else undefined (also for a line without usage or a zero one). */
  next(line: Obj, message: Obj): UsageInput | undefined {
    const usage = message.usage;
    if (usage === null || typeof usage !== "object") return undefined;
    const messageId = typeof message.id === "string" ? message.id : undefined;
    const requestId = typeof line.requestId === "string" ? line.requestId : undefined;
    // A line without both ids cannot be matched with its siblings: counted on its own, as
    // ccusage does.
    if (messageId !== undefined && requestId !== undefined) {
      const key = `${messageId}\u0000${requestId}`;
      if (this.#seen.has(key)) return undefined;
      this.#seen.add(key);
    }
    const u = usage as Obj;
    const n = (v: unknown) => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : 0);
    const out: UsageInput = {
      model: typeof message.model === "string" && message.model !== "" ? message.model : "unknown",
      provider: "anthropic",
      inputTokens: n(u.input_tokens),
      outputTokens: n(u.output_tokens),
      cacheWriteTokens: n(u.cache_creation_input_tokens),
      cacheReadTokens: n(u.cache_read_input_tokens),
    };
    const total = (out.inputTokens ?? 0) + (out.outputTokens ?? 0) + (out.cacheWriteTokens ?? 0);
    return total + (out.cacheReadTokens ?? 0) === 0 ? undefined : out;
  }
}
