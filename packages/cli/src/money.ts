/**
 * Sums of US dollars that read as money. The store keeps costs as floating-point numbers and
 * adds them so (a session's cost is the sum of its usage records), so a plain sum shows float
 * noise: 1.1 + 2.2 + 0.66 is 3.9600000000000004. Every amount is taken to the nearest
 * 1e-10 USD (far below any price's precision: a token of the cheapest model costs ~1e-8) and
 * added as an integer count of those units, so a total is exactly the sum of the amounts
 * recorded, as they were written, and prints as 3.96.
 */

/** The units an amount is counted in: 1e-10 USD. */
const UNITS_PER_USD = 1e10;
/** Past this many units an integer count is no longer exact in a double (~$900 000). */
const EXACT_UNITS = Number.MAX_SAFE_INTEGER;

/** `usd` as the nearest whole number of units, back in dollars: drops a sum's float noise. */
export function exactUsd(usd: number): number {
  const units = Math.round(usd * UNITS_PER_USD);
  return Math.abs(units) <= EXACT_UNITS ? units / UNITS_PER_USD : usd;
}

/** a + b, exact to the unit. */
export function addUsd(a: number, b: number): number {
  const sum = Math.round(a * UNITS_PER_USD) + Math.round(b * UNITS_PER_USD);
  return Math.abs(sum) <= EXACT_UNITS ? sum / UNITS_PER_USD : a + b;
}

/** A session as printed: its cost without the noise of the store's running sum. */
export function exactCost<S extends { estimatedCostUsd: number }>(session: S): S {
  return { ...session, estimatedCostUsd: exactUsd(session.estimatedCostUsd) };
}
