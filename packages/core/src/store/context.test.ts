import { afterEach, describe, expect, it } from "vitest";
import { tempDir, wrappingDriver } from "../../test/support/driver.js";
import { openTestStore, type TestStore } from "../../test/support/fts-context.js";
import type { SqliteDriver } from "../driver.js";
import { VARYING_STATEMENTS } from "./context.js";

/** The test driver, counting the prepares of each statement text. */
function countingDriver(prepares: Map<string, number>): SqliteDriver {
  return wrappingDriver((sql, statement) => {
    prepares.set(sql, (prepares.get(sql) ?? 0) + 1);
    return statement;
  });
}

describe("varying statements", () => {
  let dir: ReturnType<typeof tempDir> | undefined;
  let store: TestStore | undefined;
  afterEach(() => {
    store?.close();
    dir?.cleanup();
  });

  it("keeps the last few texts prepared, least recently used out first", () => {
    const prepares = new Map<string, number>();
    dir = tempDir();
    store = openTestStore(dir.file("state.db"), { driver: countingDriver(prepares) });
    const { ctx } = store;
    const text = (i: number) => `SELECT ${i} AS n`;
    expect(ctx.varyingStatement(text(0)).all()).toEqual([{ n: 0 }]);
    for (let i = 1; i < VARYING_STATEMENTS; i++) ctx.varyingStatement(text(i)).all();
    ctx.varyingStatement(text(0)).all(); // used again: now the most recent
    ctx.varyingStatement(text(VARYING_STATEMENTS)).all(); // one too many: text(1) goes
    expect(prepares.get(text(0))).toBe(1);
    ctx.varyingStatement(text(2)).all();
    expect(prepares.get(text(2))).toBe(1);
    ctx.varyingStatement(text(1)).all();
    expect(prepares.get(text(1))).toBe(2);
    // Closing forgets them all.
    ctx.clearStatements();
    ctx.varyingStatement(text(0)).all();
    expect(prepares.get(text(0))).toBe(2);
  });
});
