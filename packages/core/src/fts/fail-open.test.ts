import { closeSync, openSync, writeSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir, testDriver } from "../../test/support/driver.js";
import {
  corruptFtsBlocks,
  FtsIndex,
  faultyDriver,
  messageOnly,
  openTestStore,
  type TestStore,
} from "../../test/support/fts-context.js";
import { SqliteError } from "../errors.js";
import { META_FTS_STALE } from "./constants.js";
import { classifyFtsError } from "./corruption.js";

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanup.reverse()) fn();
  cleanup = [];
});

function open(path: string, driver = testDriver): { store: TestStore; fts: FtsIndex } {
  const store = openTestStore(path, { driver });
  cleanup.push(() => store.close());
  const fts = new FtsIndex(store.ctx);
  store.write(() => fts.install());
  fts.repairAtOpen();
  return { store, fts };
}

function populated(n = 300): string {
  const dir = tempDir();
  cleanup.push(dir.cleanup);
  const path = dir.file("state.db");
  const store = openTestStore(path);
  const fts = new FtsIndex(store.ctx);
  store.write(() => fts.install());
  fts.repairAtOpen();
  // One transaction per row: many small segments, so the next write has to merge them.
  for (let i = 0; i < n; i++)
    store.add({ content: `hello world number ${i} lorem ipsum ${(i * 7919) % 1000}` });
  store.conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  store.close();
  return path;
}

/** The Store's write path: on failure ask failOpen, retry the canonical write once. */
function writeWithFailOpen(store: TestStore, fts: FtsIndex, content: string): number {
  try {
    return store.add({ content });
  } catch (error) {
    if (!fts.failOpen(error)) throw error;
    return store.add({ content });
  }
}

describe("fail-open on FTS corruption", () => {
  it.each([
    ["code-reporting driver", false],
    ["message-only driver (Deno)", true],
  ])(
    "garbage FTS blocks: the write goes through, search answers by LIKE, rebuild restores FTS (%s)",
    (_, msgOnly) => {
      const path = populated();
      corruptFtsBlocks(path, "messages_fts", "id >= 10");
      const driver = msgOnly ? faultyDriver(testDriver, { mapError: messageOnly }) : testDriver;
      const { store, fts } = open(path, driver);
      let failure: unknown;
      try {
        store.add({ content: "probe write" });
      } catch (error) {
        failure = error;
      }
      expect(failure).toBeInstanceOf(SqliteError);
      // Random garbage fails as CORRUPT_VTAB, an fts5 message, or NOMEM (a bogus size): all
      // are handled by fail-open, NOMEM through the probe.
      expect(["fts", "ambiguous"]).toContain(classifyFtsError(failure));
      const id = writeWithFailOpen(store, fts, "after corruption zebracorn");
      expect(store.get("SELECT content FROM messages WHERE id = ?", id)?.content).toBe(
        "after corruption zebracorn",
      );
      expect(store.get("SELECT value FROM state_meta WHERE key = ?", META_FTS_STALE)).toBeDefined();
      expect(fts.status().state).toBe("stale");
      expect(store.add({ content: "more writes keep working" })).toBeGreaterThan(id);
      const result = fts.search("zebracorn");
      expect(result).toMatchObject({ route: "like", hits: [{ messageId: id }] });
      expect(fts.integrityProblems()).toEqual([expect.objectContaining({ kind: "fts-detached" })]);
      expect(fts.rebuild({ timeoutMs: 0 })).toEqual({ rebuilt: true });
      expect(fts.status().state).toBe("ready");
      expect(fts.search("zebracorn")).toMatchObject({ route: "fts", hits: [{ messageId: id }] });
      expect(fts.integrityProblems()).toEqual([]);
    },
  );

  it("a search that meets a corrupt index answers by LIKE and detaches it", () => {
    const path = populated(50);
    corruptFtsBlocks(path, "messages_fts", "id > 10");
    const { store, fts } = open(path);
    const result = fts.search("lorem", { limit: 100 });
    expect(result.route).toBe("like");
    expect(result.hits.length).toBe(50);
    expect(fts.status().state).toBe("stale");
    expect(store.add({ content: "lorem again" })).toBe(51);
  });

  it("a plain CORRUPT (message-only) is FTS-scoped only when the FTS probe reproduces it", () => {
    const generic = new SqliteError("CORRUPT", "database disk image is malformed");
    expect(classifyFtsError(generic)).toBe("ambiguous");
    const healthy = open(populated(20));
    expect(healthy.fts.failOpen(generic)).toBe(false); // FTS is fine: structural, not ours
    expect(healthy.fts.status().state).toBe("ready");

    const path = populated(300);
    corruptFtsBlocks(path, "messages_fts", "id >= 10");
    const broken = open(path);
    expect(broken.fts.failOpen(generic)).toBe(true);
    expect(broken.fts.status().state).toBe("stale");
  });

  it("structural corruption of messages is not FTS-scoped: failOpen says no", () => {
    const path = populated(200);
    const probe = openTestStore(path);
    const pageSize = Number(probe.get("PRAGMA page_size")?.page_size);
    const root = Number(probe.get("SELECT rootpage FROM sqlite_master WHERE name = 'messages'")?.rootpage);
    probe.close();
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, (root - 1) * pageSize);
    closeSync(fd);
    for (const driver of [testDriver, faultyDriver(testDriver, { mapError: messageOnly })]) {
      const store = openTestStore(path, { driver });
      const fts = new FtsIndex(store.ctx);
      let failure: unknown;
      try {
        store.add({ content: "x" });
      } catch (error) {
        failure = error;
      }
      expect(failure).toMatchObject({ resultCode: "CORRUPT" });
      expect(fts.failOpen(failure)).toBe(false);
      store.close();
    }
  });

  it("other errors and re-entrant calls are not fail-open", () => {
    const { fts } = open(populated(5));
    expect(fts.failOpen(new SqliteError("BUSY", "database is locked"))).toBe(false);
    expect(fts.failOpen(new Error("boom"))).toBe(false);
    expect(fts.failOpen(new SqliteError("NOTADB", "file is not a database"))).toBe(false);
  });
});
