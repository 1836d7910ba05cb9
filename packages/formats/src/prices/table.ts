/**
 * List prices in USD per million tokens, as the vendors' public pricing pages give them on
 * PRICES_AS_OF (Anthropic's "Pricing" page of its API docs, OpenAI's API pricing page): facts
 * copied by hand, standard tier, no batch or regional discounts. `cacheWrite` is Anthropic's
 * 5-minute cache write; OpenAI charges no cache write (its cached-token writes are billed as
 * input), so there it is the input price. Output includes reasoning tokens, which both vendors
 * bill as output and count inside the output total.
 */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The day the table was read from the vendors' pages. */
export const PRICES_AS_OF = "2026-01-15";

const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  // Anthropic: cache reads at 0.1× input, 5-minute cache writes at 1.25× input.
  cacheRead: input / 10,
  cacheWrite: input * 1.25,
});
const openai = (input: number, cachedInput: number, output: number): ModelPrice => ({
  input,
  output,
  cacheRead: cachedInput,
  cacheWrite: input,
});

/** By model id without a date suffix. */
export const PRICES: ReadonlyMap<string, ModelPrice> = new Map([
  ["claude-opus-4-5", anthropic(5, 25)],
  ["claude-opus-4-1", anthropic(15, 75)],
  ["claude-opus-4", anthropic(15, 75)],
  ["claude-sonnet-4-5", anthropic(3, 15)],
  ["claude-sonnet-4", anthropic(3, 15)],
  ["claude-3-7-sonnet", anthropic(3, 15)],
  ["claude-haiku-4-5", anthropic(1, 5)],
  ["claude-3-5-haiku", anthropic(0.8, 4)],
  ["gpt-5", openai(1.25, 0.125, 10)],
  ["gpt-5-codex", openai(1.25, 0.125, 10)],
  ["gpt-5-mini", openai(0.25, 0.025, 2)],
  ["gpt-5-nano", openai(0.05, 0.005, 0.4)],
  ["gpt-4.1", openai(2, 0.5, 8)],
  ["gpt-4.1-mini", openai(0.4, 0.1, 1.6)],
  ["gpt-4o", openai(2.5, 1.25, 10)],
  ["gpt-4o-mini", openai(0.15, 0.075, 0.6)],
  ["o3", openai(2, 0.5, 8)],
  ["o4-mini", openai(1.1, 0.275, 4.4)],
]);
