/**
 * Numbers are written out by hand (src/format.ts) to spare a short command ICU's number formats;
 * the text must be what `toLocaleString("en-US")` writes, rounding included.
 */
import { describe, expect, it } from "vitest";
import { count, usd } from "../src/format.js";

const dollars = (n: number) => {
  const digits = Math.abs(n) < 0.01 ? 4 : 2;
  return `$${n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
};

/** A seeded sequence in [0, 1), so a failure names values that come back on the next run. */
function* seeded(seed: number, n: number): Generator<number> {
  let state = seed;
  for (let i = 0; i < n; i++) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    yield state / 2 ** 31;
  }
}

describe("numbers as toLocaleString writes them", () => {
  it("count: integers grouped by thousands; anything else through toLocaleString", () => {
    for (const n of [
      0,
      1,
      -1,
      999,
      1000,
      -1000,
      12_345,
      1_234_567,
      Number.MAX_SAFE_INTEGER,
      1.5,
      1e21,
      Number.NaN,
    ])
      expect(count(n)).toBe(n.toLocaleString("en-US"));
  });

  it("usd: two decimals, four under a cent, rounded half up from the shortest spelling", () => {
    const edges = [
      0.001, 0.00995, 0.009999, 0.01, 0.005, 0.125, 1.005, 2.675, 99.995, 1e-7, -0.00001, -1234.567,
    ];
    for (const n of [...edges, 1234567.891, 1e20]) expect(usd(n), String(n)).toBe(dollars(n));
    const random = [...seeded(7, 20_000)];
    for (let i = 0; i + 1 < random.length; i += 2) {
      const n = ((random[i] as number) - 0.2) * 10 ** Math.floor((random[i + 1] as number) * 12 - 5);
      if (n !== 0) expect(usd(n), String(n)).toBe(dollars(n));
    }
    expect(usd(0)).toBe("-");
  });
});
