/**
 * Money sums: costs recorded as 0.1, 0.2, 1.1, 2.2 and 0.36 USD add up, in every output, to what
 * was recorded (3.96), not to the float noise a plain running sum gives. The store's own
 * per-session sum drifts too (0.1 + 0.2); the CLI prints it exact.
 */

import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { addUsd, exactUsd } from "../src/money.js";
import { cli, json, tempDir, withStore } from "./helpers.js";

const COSTS = [
  ["a", "m1", 0.1],
  ["a", "m1", 0.2],
  ["b", "m2", 1.1],
  ["b", "m2", 2.2],
  ["b", "m1", 0.36],
] as const;

describe("money sums", () => {
  it("adds amounts exactly to 1e-10 USD", () => {
    const naive = COSTS.reduce((n, [, , c]) => n + c, 0);
    expect(naive).not.toBe(3.96); // the noise this is about
    expect(COSTS.reduce((n, [, , c]) => addUsd(n, c), 0)).toBe(3.96);
    expect(exactUsd(0.1 + 0.2)).toBe(0.3);
    expect(exactUsd(0.000000123)).toBe(0.000000123);
    expect(addUsd(-1.1, 0.1)).toBe(-1);
  });

  it("usage --json, sessions list --json, sessions show --json and stats --json print exact sums", () => {
    const dir = tempDir();
    const db = path.join(dir, "s.db");
    withStore(db, (store) => {
      store.createSession({ id: "a", source: "cli", startedAt: 1_770_000_000 });
      store.createSession({ id: "b", source: "cli", startedAt: 1_770_000_100 });
      for (const [id, model, costUsd] of COSTS) store.recordUsage(id, { model, costUsd, inputTokens: 1 });
      expect(store.getSession("a")?.estimatedCostUsd).not.toBe(0.3); // the store's running sum drifts
    });
    const usage = json(cli(["--db", db, "usage", "--json"]));
    expect(usage.total.cost).toBe(3.96);
    expect(usage.byDay.map((d: { cost: number }) => d.cost)).toEqual([3.96]);
    expect(usage.byModel.map((m: { model: string; cost: number }) => [m.model, m.cost]).sort()).toEqual([
      ["m1", 0.66],
      ["m2", 3.3],
    ]);
    const { sessions } = json(cli(["--db", db, "sessions", "list", "--json"]));
    expect(sessions.map((s: { id: string; estimatedCostUsd: number }) => [s.id, s.estimatedCostUsd])).toEqual(
      [
        ["b", 3.66],
        ["a", 0.3],
      ],
    );
    expect(json(cli(["--db", db, "sessions", "show", "a", "--json"])).session.estimatedCostUsd).toBe(0.3);
    expect(json(cli(["--db", db, "stats", "--json"])).costUsd).toBe(3.96);
  });
});
