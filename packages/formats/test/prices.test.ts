/** The price table: dated model names find their model, unknown ones find nothing (no guess),
 * and an estimate is tokens × list price, marked estimated. */
import { describe, expect, it } from "vitest";
import { estimateUsage, PRICES_AS_OF, priceOf } from "../src/prices/index.js";

describe("prices", () => {
  it("finds a model by its name with or without the vendor's date", () => {
    expect(priceOf("claude-opus-4-5-20251101")).toEqual({
      input: 5,
      output: 25,
      cacheRead: 0.5,
      cacheWrite: 6.25,
    });
    expect(priceOf("gpt-5-2025-08-07")).toEqual(priceOf("gpt-5"));
    expect(priceOf("gpt-5.9-turbo")).toBeUndefined();
    expect(priceOf("claude-opus-4-5-extra")).toBeUndefined();
    expect(PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("estimates a cost from tokens and marks it; an unknown model gets none", () => {
    const usage = estimateUsage({
      model: "claude-sonnet-4-5-20250929",
      inputTokens: 1_000_000,
      outputTokens: 100_000,
      cacheReadTokens: 2_000_000,
      cacheWriteTokens: 400_000,
    });
    expect(usage?.billingMode).toBe("estimated");
    // 3 + 1.5 + 0.6 + 1.5
    expect(usage?.costUsd).toBeCloseTo(6.6, 12);
    expect(estimateUsage({ model: "my-local-llama", inputTokens: 5 })).toBeUndefined();
  });
});
