/**
 * Token and cost accounting (spec §8): per (model, provider, base URL, billing mode, task) rows
 * whose counters add up, mirrored into the session's totals in the same transaction.
 */
import { InvalidInputError, SessionNotFoundError } from "../errors.js";
import type { StoreContext } from "./context.js";
import { toUsageRow } from "./rows.js";
import { requireSession } from "./sessions.js";
import type { UsageInput, UsageRow } from "./types.js";
import * as valid from "./validate.js";

/** Add token and cost counters for one (model, provider, base URL, billing mode, task). */
export function recordUsage(ctx: StoreContext, sessionId: string, usage: UsageInput): void {
  const id = valid.sessionId(sessionId);
  if (!usage || typeof usage !== "object") throw new InvalidInputError("usage", "expected an object");
  const key = [
    valid.requiredText(usage.model, "usage.model", 500),
    valid.optionalText(usage.provider, "usage.provider", 500) ?? "",
    valid.optionalText(usage.baseUrl, "usage.baseUrl", 2000) ?? "",
    valid.optionalText(usage.billingMode, "usage.billingMode", 200) ?? "",
    valid.optionalText(usage.task, "usage.task", 200) ?? "",
  ];
  const counters = [
    valid.count(usage.inputTokens, "usage.inputTokens") ?? 0,
    valid.count(usage.outputTokens, "usage.outputTokens") ?? 0,
    valid.count(usage.cacheReadTokens, "usage.cacheReadTokens") ?? 0,
    valid.count(usage.cacheWriteTokens, "usage.cacheWriteTokens") ?? 0,
    valid.count(usage.reasoningTokens, "usage.reasoningTokens") ?? 0,
  ];
  const cost = valid.amount(usage.costUsd, "usage.costUsd");
  const now = ctx.now() / 1000;
  ctx.write(() => {
    const { changes } = ctx
      .statement(
        `UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
         cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
         reasoning_tokens = reasoning_tokens + ?, estimated_cost_usd = estimated_cost_usd + ? WHERE id = ?`,
      )
      .run(...counters, cost, id);
    if (changes === 0) throw new SessionNotFoundError(id);
    ctx
      .statement(
        `INSERT INTO session_model_usage (session_id, model, provider, base_url, billing_mode, task, call_count,
         input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(session_id, model, provider, base_url, billing_mode, task) DO UPDATE SET
         call_count = call_count + 1,
         input_tokens = input_tokens + excluded.input_tokens,
         output_tokens = output_tokens + excluded.output_tokens,
         cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
         cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
         reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
         cost_usd = cost_usd + excluded.cost_usd,
         updated_at = excluded.updated_at`,
      )
      .run(id, ...key, ...counters, cost, now);
  });
}

/** Usage rows of a session. */
export function getUsage(ctx: StoreContext, sessionId: string): UsageRow[] {
  const id = valid.sessionId(sessionId);
  return ctx.read(() => {
    requireSession(ctx, id);
    return ctx
      .statement(
        "SELECT * FROM session_model_usage WHERE session_id = ? ORDER BY model, provider, base_url, billing_mode, task",
      )
      .all(id)
      .map(toUsageRow);
  });
}
