/**
 * A groupable write offers itself only where the store's policy says something may take it
 * (`groupsWrites`): the sync store's appends never yield the `offer` effect, and an offer that no
 * one takes still writes. Over a real SQLite file with the Store's schema (test/support).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/support/driver.js";
import { openTestStore, type TestStore } from "../../test/support/fts-context.js";
import type { Op } from "../engine/effects.js";
import { runSync } from "../engine/run-sync.js";
import { createContext, type StoreContext } from "../store/context.js";
import { appendMessages } from "../store/messages.js";
import { createPolicy } from "./state.js";

let dir: ReturnType<typeof tempDir>;
let store: TestStore;

beforeEach(() => {
  dir = tempDir();
  store = openTestStore(dir.file("calls.db"));
  store.conn.exec("INSERT INTO sessions(id, source, started_at) VALUES ('s1', 'cli', 0)");
});

afterEach(() => {
  store.close();
  dir.cleanup();
});

/** `op` as it runs, with the kind of every effect it yields at its own level recorded. */
function* recorded<T>(op: Op<T>, kinds: string[]): Op<T> {
  let step = op.next();
  while (!step.done) {
    kinds.push(step.value.kind);
    let answer: unknown;
    try {
      answer = yield step.value;
    } catch (error) {
      step = op.throw(error);
      continue;
    }
    step = op.next(answer);
  }
  return step.value;
}

function appendOn(ctx: StoreContext, content: string): { ids: number[]; kinds: string[] } {
  const kinds: string[] = [];
  const ids = runSync(ctx, recorded(appendMessages("s1", [{ role: "user", content }], 1_000), kinds));
  return { ids, kinds };
}

const count = (kinds: string[], kind: string) => kinds.filter((k) => k === kind).length;

describe("write's offer", () => {
  it("is never made on a policy that does not group writes (the sync store's)", () => {
    expect(store.ctx.policy.groupsWrites).toBe(false);
    const { ids, kinds } = appendOn(store.ctx, "alone");
    expect(count(kinds, "offer")).toBe(0);
    expect(count(kinds, "transaction")).toBe(1);
    expect(store.get("SELECT content FROM messages WHERE id = ?", ids[0] as number)?.content).toBe("alone");
  });

  it("is made once on a policy that groups writes, and a write no one takes is stored as usual", () => {
    const ctx = createContext({
      ...store.ctx,
      policy: createPolicy({ ...store.ctx.policy, groupsWrites: true }, store.ctx.policy.environment),
    });
    const { ids, kinds } = appendOn(ctx, "offered");
    expect(count(kinds, "offer")).toBe(1);
    expect(count(kinds, "transaction")).toBe(1);
    expect(store.get("SELECT content FROM messages WHERE id = ?", ids[0] as number)?.content).toBe("offered");
    expect(store.get("SELECT message_count AS n FROM sessions WHERE id = 's1'")?.n).toBe(1);
  });
});
