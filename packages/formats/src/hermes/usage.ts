/**
 * Hermes's token usage: `session_model_usage` keeps one row per session, model, billing
 * provider, base URL, billing mode and task (the same key as sessiondb's usage), each the
 * running totals of that key's calls. Each import stores a usage row's totals minus those the
 * last import kept (the session's mark), so a session's stored usage sums to Hermes's totals
 * however often it is imported. A database older than that table keeps the totals on the
 * session row (`input_tokens` … of `sessions`, for its `model`): read alike, as one usage row.
 * Hermes counts input, cache reads and cache writes apart, as sessiondb does: stored as given.
 */
import { createHash } from "node:crypto";
import type { UsageInput } from "@sessiondb/core";
import type { Row } from "@sessiondb/core/driver";
import { count, text } from "./columns.js";

/** A usage row and the table it is from. */
export interface UsageRow {
  table: string;
  row: Row;
}

/** A row's running totals: calls, input, output, cache read, cache write, reasoning tokens,
 * estimated and actual cost (USD). */
export type Totals = [number, number, number, number, number, number, number, number];

const COLUMNS = [
  "api_call_count",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  "estimated_cost_usd",
  "actual_cost_usd",
] as const;

/** The row's key, as its mark and its records name it. */
export function usageKey({ row }: UsageRow): string {
  return JSON.stringify([
    text(row.model) ?? "",
    text(row.billing_provider) ?? "",
    text(row.billing_base_url) ?? "",
    text(row.billing_mode) ?? "",
    text(row.task) ?? "",
  ]);
}

export function totalsOf({ row }: UsageRow): Totals {
  return COLUMNS.map((c) => count(row[c])) as Totals;
}

/** The usage a session row of an older database holds, if any. */
export function fromSessionRow(session: Row): UsageRow[] {
  const model = text(session.model);
  if (model === undefined || COLUMNS.every((c) => count(session[c]) === 0)) return [];
  const row: Row = { model, task: "" };
  for (const c of [...COLUMNS, "billing_provider", "billing_base_url", "billing_mode"])
    row[c] = session[c] ?? null;
  return [{ table: "sessions", row }];
}

/** Cost differences rounded off the float noise a subtraction leaves (0.3 − 0.1). */
const money = (usd: number) => Math.round(usd * 1e12) / 1e12;

/**
 * What a usage row adds since `previous` (the totals last imported, or null): the usage to
 * store, its calls, and an externalId naming the totals it brings the key to (the same totals
 * imported twice are one row). Undefined when nothing was added.
 */
export function usageSince(
  u: UsageRow,
  previous: Totals | null,
): { usage: UsageInput; calls: number; externalId: string } | undefined {
  const now = totalsOf(u);
  // Totals that went down were counted anew (a rebuilt row): then they are all new.
  const base = previous && now.every((v, i) => v >= (previous[i] ?? 0)) ? previous : null;
  const d = now.map((v, i) => v - (base?.[i] ?? 0));
  if (d.every((v) => v === 0)) return undefined;
  const [calls, input, output, cacheRead, cacheWrite, reasoning, estimated, actual] = d as Totals;
  const { row } = u;
  const usage: UsageInput = {
    model: text(row.model) ?? "unknown",
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: reasoning,
  };
  const provider = text(row.billing_provider);
  if (provider !== undefined) usage.provider = provider;
  const baseUrl = text(row.billing_base_url);
  if (baseUrl !== undefined) usage.baseUrl = baseUrl;
  const mode = text(row.billing_mode);
  if (mode !== undefined) usage.billingMode = mode;
  const task = text(row.task);
  if (task !== undefined) usage.task = task;
  // The cost Hermes recorded (what the provider billed, else Hermes's own estimate), also when
  // this delta adds none of it. A key Hermes never priced: the importer estimates one.
  if ((now[7] ?? 0) > 0) usage.costUsd = money(actual);
  else if ((now[6] ?? 0) > 0) usage.costUsd = money(estimated);
  const hash = createHash("sha256")
    .update(JSON.stringify([usageKey(u), now]))
    .digest("hex")
    .slice(0, 16);
  return { usage, calls, externalId: `usage:${hash}` };
}
