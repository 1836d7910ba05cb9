import { describe, expect, test } from "vitest";
import { RecoveryBackoff } from "./recovery-backoff.js";

const S = 1000;

/** Fail at each allowed moment and record the interval granted each time. */
function intervals(backoff: RecoveryBackoff, failures: number, start = 10_000): number[] {
  const out: number[] = [];
  let now = start;
  for (let i = 0; i < failures; i++) {
    expect(backoff.due(now)).toBe(true);
    backoff.failed(now);
    out.push(backoff.nextAttemptAt - now);
    now = backoff.nextAttemptAt;
  }
  return out;
}

describe("RecoveryBackoff", () => {
  test("due before any failure; nextAttemptAt 0", () => {
    const backoff = new RecoveryBackoff();
    expect(backoff.nextAttemptAt).toBe(0);
    expect(backoff.due(0)).toBe(true);
    expect(backoff.due(Date.now())).toBe(true);
  });

  test("defaults: 60 s → 120 s → 240 s … capped at 1 h", () => {
    expect(intervals(new RecoveryBackoff(), 9)).toEqual([
      60 * S,
      120 * S,
      240 * S,
      480 * S,
      960 * S,
      1920 * S,
      3600 * S,
      3600 * S,
      3600 * S,
    ]);
  });

  test("not due until the interval has passed", () => {
    const backoff = new RecoveryBackoff();
    backoff.failed(1_000);
    expect(backoff.nextAttemptAt).toBe(61_000);
    expect(backoff.due(1_000)).toBe(false);
    expect(backoff.due(60_999)).toBe(false);
    expect(backoff.due(61_000)).toBe(true);
  });

  test("base 0: 0 once, then the 1 s floor, then doubling", () => {
    expect(intervals(new RecoveryBackoff({ baseMs: 0 }), 5)).toEqual([0, 1 * S, 2 * S, 4 * S, 8 * S]);
  });

  test("a custom floor and cap", () => {
    expect(intervals(new RecoveryBackoff({ baseMs: 0, floorMs: 5 * S, maxMs: 12 * S }), 5)).toEqual([
      0,
      5 * S,
      10 * S,
      12 * S,
      12 * S,
    ]);
    // A base above the cap is capped too.
    expect(intervals(new RecoveryBackoff({ baseMs: 10 * S, maxMs: 3 * S }), 2)).toEqual([3 * S, 3 * S]);
  });

  test("success resets to the base interval and makes it due at once", () => {
    const backoff = new RecoveryBackoff();
    intervals(backoff, 4);
    expect(backoff.due(0)).toBe(false);
    backoff.succeeded();
    expect(backoff.nextAttemptAt).toBe(0);
    expect(backoff.due(0)).toBe(true);
    expect(intervals(backoff, 2)).toEqual([60 * S, 120 * S]);
  });

  test("a denied attempt while not due still pushes the next one out", () => {
    const backoff = new RecoveryBackoff({ baseMs: 10 * S });
    backoff.failed(0);
    backoff.failed(5 * S);
    expect(backoff.nextAttemptAt).toBe(25 * S);
  });
});
