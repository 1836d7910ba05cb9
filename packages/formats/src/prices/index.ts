/**
 * Cost estimates for usage a format records without a cost (Claude Code transcripts, Codex
 * rollouts): tokens × the dated list price of the model (table.ts). An estimated usage row is
 * stored with `billingMode: "estimated"`, its own row beside any recorded cost, so every output
 * can tell the two apart; a model the table does not have gets no cost at all (never a guess),
 * and the importer counts it as unpriced.
 */
import type { UsageInput } from "@sessiondb/core";
import { type ModelPrice, PRICES, PRICES_AS_OF } from "./table.js";

export { type ModelPrice, PRICES_AS_OF };

/** The billing mode of a usage row whose cost is an estimate from the price table. */
export const ESTIMATED = "estimated";

/** A date the vendors put after a model's name: `-20251101` or `-2025-08-07`. */
const DATED = /-(\d{8}|\d{4}-\d{2}-\d{2})$/;

/** The list price of `model`, if the table has it (its dated snapshots included). */
export function priceOf(model: string): ModelPrice | undefined {
  return PRICES.get(model) ?? PRICES.get(model.replace(DATED, ""));
}

/**
 * `usage` with its estimated cost, or undefined when the model has no price. Usage that records
 * a cost of its own is the caller's to keep as it is.
 */
export function estimateUsage(usage: UsageInput): UsageInput | undefined {
  const price = priceOf(usage.model);
  if (!price) return undefined;
  const cost =
    ((usage.inputTokens ?? 0) * price.input +
      (usage.outputTokens ?? 0) * price.output +
      (usage.cacheReadTokens ?? 0) * price.cacheRead +
      (usage.cacheWriteTokens ?? 0) * price.cacheWrite) /
    1_000_000;
  return { ...usage, billingMode: ESTIMATED, costUsd: cost };
}
