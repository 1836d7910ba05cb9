/**
 * The jobs loaded on first use (on-demand.ts) keep the refusal they had when their code was part
 * of every open: called inside `store.transaction`, each rejects with the refusal at once, and
 * nothing of it runs once the transaction is over and its code has loaded.
 */
import { existsSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir, testDriver } from "../test/support/driver.js";
import { InvalidInputError } from "./errors.js";
import { nodeFsHost } from "./host/node-fs.js";
import { createStore, type Store } from "./store.js";

let dir: ReturnType<typeof tempDir>;
let store: Store;

beforeEach(() => {
  dir = tempDir();
  store = createStore(testDriver, dir.file("state.db"), { host: nodeFsHost });
  store.createSession({ id: "old", source: "cli" });
  store.appendMessage("old", { role: "user", content: "hello" });
});

afterEach(() => {
  store.close();
  dir.cleanup();
});

describe("jobs loaded on demand", () => {
  it("are refused inside store.transaction at the call, and do nothing afterwards", async () => {
    const copy = dir.file("copy.db");
    const calls = store.transaction((tx) => {
      tx.createSession({ id: "new", source: "cli" });
      return [
        tx.vacuum(),
        tx.importSessions([{ session: { id: "imported", source: "cli" }, messages: [] }]),
        tx.deleteSessions(["old"]),
        tx.backup(copy),
      ];
    });
    const outcomes = await Promise.allSettled(calls);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      const reason = (outcome as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(InvalidInputError);
      expect((reason as Error).message).toMatch(/inside store\.transaction/);
    }
    // The body itself committed; none of the refused jobs ran after it.
    expect(store.getSession("new")).toBeDefined();
    expect(store.getSession("imported")).toBeUndefined();
    expect(store.getSession("old")).toBeDefined();
    expect(existsSync(copy)).toBe(false);
  });

  it("run as before outside a transaction", async () => {
    const copy = dir.file("copy.db");
    const imported = await store.importSessions([
      { session: { id: "imported", source: "cli" }, messages: [] },
    ]);
    expect(imported.imported).toBe(1);
    expect((await store.deleteSessions(["old"])).sessions).toBe(1);
    await store.vacuum();
    await store.backup(copy);
    expect(existsSync(copy)).toBe(true);
    expect(store.getSession("old")).toBeUndefined();
  });
});
