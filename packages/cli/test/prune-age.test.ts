/**
 * `prune --older-than` with an age no clock can reach back to (99999999d is 273,000 years, a
 * cutoff before the first date JavaScript can show): a usage error that names the limit, exit 2,
 * nothing deleted — never a RangeError stack.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { cli, expectOneLineError, storeState, tempDir, withStore } from "./helpers.js";

describe("prune --older-than limits", () => {
  const db = path.join(tempDir(), "state.db");
  withStore(db, (s) => {
    s.createSession({ id: "old", source: "cli", startedAt: 1 });
    s.appendMessage("old", { role: "user", content: "from 1970", timestamp: 2 });
  });

  it.each(["99999999d", "36501d", "5215w", "52560001m", "9999999999999999999999h"])(
    "%s is exit 2 naming the limit; nothing is deleted",
    (age) => {
      for (const extra of [["--dry-run"], ["--yes"]]) {
        const r = cli(["--db", db, "prune", "--older-than", age, ...extra]);
        expectOneLineError(r, 2, "USAGE");
        expect(r.stderr).toContain(`--older-than is at most 36500d (100 years), got "${age}"`);
      }
      expect(storeState(db)).toMatchObject({ sessions: 1, messages: 1 });
    },
  );

  it("36500d, the limit, works and reaches back before 1970", () => {
    const r = cli(["--db", db, "prune", "--older-than", "36500d", "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/would delete 0 sessions \(0 messages\) last active before 19\d\d-/);
  });
});
