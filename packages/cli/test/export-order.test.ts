/**
 * The order an export writes sessions in: by start time, every parent before its children, so an
 * import of the file finds each parent in place — also for a chain longer than the call stack is
 * deep, and with a cycle (which a damaged or hand-edited store can hold).
 */
import type { SessionSummary } from "@sessiondb/core";
import { describe, expect, it } from "vitest";
import { exportOrder } from "../src/commands/export.js";

const session = (id: string, startedAt: number, parentSessionId: string | null = null) =>
  ({ id, startedAt, parentSessionId }) as SessionSummary;

describe("exportOrder", () => {
  it("sorts by start time, then id, and puts a parent before a child that sorts first", () => {
    const order = exportOrder([session("c", 3), session("b", 1, "c"), session("a", 1)]);
    expect(order.map((s) => s.id)).toEqual(["a", "c", "b"]);
  });

  it("places a chain of 200 000 sessions whose children all sort before their parents", () => {
    const n = 200_000;
    // Ids that sort child first, one start time: session i's parent is i + 1.
    const id = (i: number) => `s${String(i).padStart(7, "0")}`;
    const sessions = Array.from({ length: n }, (_, i) => session(id(i), 0, i + 1 < n ? id(i + 1) : null));
    const order = exportOrder(sessions);
    expect(order).toHaveLength(n);
    expect(order[0]?.id).toBe(id(n - 1));
    expect(order.at(-1)?.id).toBe(id(0));
    const at = new Map(order.map((s, i) => [s.id, i]));
    for (const s of sessions)
      if (s.parentSessionId) expect(at.get(s.parentSessionId)).toBeLessThan(at.get(s.id) as number);
  });

  it("writes each session of a parent cycle once", () => {
    const order = exportOrder([session("a", 1, "b"), session("b", 2, "a"), session("c", 3, "zz-missing")]);
    expect(order.map((s) => s.id)).toEqual(["b", "a", "c"]);
  });
});
