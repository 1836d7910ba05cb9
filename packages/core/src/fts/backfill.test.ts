import { afterEach, describe, expect, it } from "vitest";
import { tempDir, testDriver } from "../../test/support/driver.js";
import { FtsIndex, faultyDriver, openTestStore, type TestStore } from "../../test/support/fts-context.js";
import { runSync } from "../engine/run-sync.js";
import { SqliteError } from "../errors.js";
import { pace } from "../maintenance/paced.js";
import { UPSERT_META_SQL } from "../schema/ddl.js";
import { backfillStepTx } from "./backfill.js";
import { BACKFILL_MIN_CHUNK_IDS, META_BACKFILL_HIGH_WATER, META_BACKFILL_PROGRESS } from "./constants.js";

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanup.reverse()) fn();
  cleanup = [];
});

/** A store with `n` messages written before the index had triggers (an old store). */
function unindexed(n: number): { path: string; store: TestStore; fts: FtsIndex } {
  const dir = tempDir();
  const path = dir.file("state.db");
  const store = openTestStore(path);
  cleanup.push(dir.cleanup, () => store.close());
  const fts = new FtsIndex(store.ctx);
  store.write(() => fts.install());
  store.write(() => {
    const insert = store.conn.prepare(
      "INSERT INTO messages(session_id, role, content, tool_name, timestamp) VALUES ('s1', ?, ?, ?, ?)",
    );
    store.conn.exec("INSERT INTO sessions(id, source, started_at) VALUES ('s1', 'cli', 0)");
    for (let i = 1; i <= n; i++) {
      const role = i % 5 === 0 ? "tool" : i % 2 ? "user" : "assistant";
      insert.run(
        role,
        `row${i} token${i} shared ${i % 7 === 0 ? "東京都" : ""}`,
        role === "tool" ? "bash" : null,
        i,
      );
    }
  });
  return { path, store, fts };
}

const meta = (store: TestStore, key: string) =>
  store.get("SELECT value FROM state_meta WHERE key = ?", key)?.value;
const docs = (store: TestStore) => Number(store.get("SELECT count(*) AS n FROM messages_fts_docsize")?.n);
const hitIds = (fts: FtsIndex, q: string) => fts.search(q, { limit: 1000 }).hits.map((h) => h.messageId);

describe("backfill", () => {
  it("indexes an old store in id windows, then clears its markers", () => {
    const { store, fts } = unindexed(100);
    expect(fts.status().state).toBe("stale");
    fts.startBackfill();
    expect(meta(store, META_BACKFILL_HIGH_WATER)).toBe("100");
    expect(fts.status()).toMatchObject({ state: "backfilling", indexed: 0, total: 100 });
    expect(fts.integrityProblems()).toEqual([]);
    expect(fts.backfillStep({ chunkIds: 30 })).toBe(true);
    expect(meta(store, META_BACKFILL_PROGRESS)).toBe("30");
    expect(fts.status()).toMatchObject({ indexed: 30, total: 100 });
    expect(fts.integrityProblems()).toEqual([]);
    let calls = 1;
    for (let more = true; more; calls++) more = fts.backfillStep({ chunkIds: 30 });
    expect(calls).toBe(4); // (0,30] (30,60] (60,90] (90,100]+sweep
    expect(meta(store, META_BACKFILL_HIGH_WATER)).toBeUndefined();
    expect(fts.status()).toEqual({ state: "ready", trigram: true });
    expect(fts.integrityProblems()).toEqual([]);
    expect(hitIds(fts, "shared").length).toBe(100);
    expect(fts.search("東京都").route).toBe("trigram");
  });

  it("a crash inside a step rolls back index and progress together", () => {
    const { store, fts } = unindexed(50);
    fts.startBackfill();
    fts.backfillStep({ chunkIds: 10 });
    const before = docs(store);
    expect(() =>
      store.write(() =>
        runSync(
          store.ctx,
          backfillStepTx(10, () => {
            expect(docs(store)).toBe(before + 10); // indexed inside the transaction …
            throw new Error("simulated crash");
          }),
        ),
      ),
    ).toThrow("simulated crash");
    expect(docs(store)).toBe(before); // … and gone with it
    expect(meta(store, META_BACKFILL_PROGRESS)).toBe("10");
    expect(fts.integrityProblems()).toEqual([]);
    while (fts.backfillStep({ chunkIds: 10 }));
    expect(fts.integrityProblems()).toEqual([]);
    expect(hitIds(fts, "shared").length).toBe(50);
  });

  it("a failure writing progress rolls the step's indexing back: index and progress share one transaction", () => {
    const { path } = unindexed(50);
    let armed = false;
    const failing = faultyDriver(testDriver, {
      reject: (sql) =>
        armed && sql === UPSERT_META_SQL ? new SqliteError("IOERR", "disk I/O error (injected)") : undefined,
    });
    const store = openTestStore(path, { driver: failing });
    cleanup.push(() => store.close());
    const fts = new FtsIndex(store.ctx);
    fts.startBackfill();
    fts.backfillStep({ chunkIds: 10 });
    const before = docs(store);
    armed = true;
    expect(() => fts.backfillStep({ chunkIds: 10 })).toThrow("injected");
    armed = false;
    // Had the progress been written in a transaction of its own, the window would be indexed
    // (committed) with progress still at 10, and the retry would index it a second time.
    expect(docs(store)).toBe(before);
    expect(meta(store, META_BACKFILL_PROGRESS)).toBe("10");
    while (fts.backfillStep({ chunkIds: 10 }));
    expect(fts.integrityProblems()).toEqual([]);
    expect(hitIds(fts, "shared").length).toBe(50);
  });

  it("steps from two connections interleave; every row is indexed exactly once", () => {
    const { path, store, fts } = unindexed(200);
    const other = openTestStore(path);
    cleanup.push(() => other.close());
    const fts2 = new FtsIndex(other.ctx);
    fts.startBackfill();
    fts2.startBackfill(); // a healthy backfill is already running: no restart
    let a = true;
    let b = true;
    while (a || b) {
      if (a) a = fts.backfillStep({ chunkIds: 17 });
      other.add({ content: "live shared row" }); // above the high-water mark: indexed by the triggers
      if (b) b = fts2.backfillStep({ chunkIds: 23 });
    }
    expect(fts.integrityProblems()).toEqual([]);
    expect(fts2.integrityProblems()).toEqual([]);
    expect(docs(store)).toBe(Number(store.get("SELECT count(*) AS n FROM messages")?.n));
    expect(new Set(hitIds(fts, "shared")).size).toBe(hitIds(fts, "shared").length);
  });

  it("live updates and deletes on both sides of the window stay consistent", () => {
    const { store, fts } = unindexed(60);
    fts.startBackfill();
    fts.backfillStep({ chunkIds: 20 });
    const update = store.conn.prepare("UPDATE messages SET content = ?, role = ? WHERE id = ?");
    store.write(() => update.run("rewritten done", "tool", 5)); // indexed side
    store.write(() => update.run("rewritten pending", "user", 45)); // pending window: triggers stay out
    store.write(() => store.conn.exec("DELETE FROM messages WHERE id IN (3, 50)"));
    const live = store.add({ content: "rewritten live" });
    store.write(() => update.run("rewritten live again", "assistant", live));
    expect(fts.integrityProblems()).toEqual([]);
    while (fts.backfillStep({ chunkIds: 20 }));
    expect(fts.integrityProblems()).toEqual([]);
    expect(hitIds(fts, "rewritten").sort((x, y) => x - y)).toEqual([5, 45, live]);
  });

  it("heals an orphaned high-water mark (progress missing) by re-seeding", () => {
    const { store, fts } = unindexed(40);
    fts.startBackfill();
    fts.backfillStep({ chunkIds: 15 });
    const live = store.add({ content: "shared live" });
    store.write(() => store.conn.prepare("DELETE FROM state_meta WHERE key = ?").run(META_BACKFILL_PROGRESS));
    fts.repairAtOpen();
    expect(meta(store, META_BACKFILL_PROGRESS)).toBe("0");
    expect(meta(store, META_BACKFILL_HIGH_WATER)).toBe(String(live));
    expect(docs(store)).toBe(0);
    while (fts.backfillStep({ chunkIds: 15 }));
    expect(fts.integrityProblems()).toEqual([]);
    expect(hitIds(fts, "shared").length).toBe(41);
    // … and a step heals it too, without an open
    fts.startBackfill();
    store.write(() => store.conn.prepare("DELETE FROM state_meta WHERE key = ?").run(META_BACKFILL_PROGRESS));
    while (fts.backfillStep({ chunkIds: 15 }));
    expect(fts.integrityProblems()).toEqual([]);
  });

  it("the boundary sweep indexes a row near the high-water mark that has no docsize row", () => {
    const { store, fts } = unindexed(30);
    fts.startBackfill();
    const missed = store.add({ content: "shared missed" });
    // Simulate a live row above the mark that the triggers did not index: take it out again.
    store.write(() => {
      store.conn.exec(`INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
        SELECT 'delete', id, content, tool_name, tool_calls FROM messages_fts_src WHERE id = ${missed}`);
      store.conn.exec(`INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name)
        SELECT 'delete', id, content, tool_name FROM messages_fts_trigram_src WHERE id = ${missed}`);
    });
    expect(store.get("SELECT count(*) AS n FROM messages_fts_docsize WHERE id = ?", missed)?.n).toBe(0);
    while (fts.backfillStep({ chunkIds: 1000 }));
    expect(store.get("SELECT count(*) AS n FROM messages_fts_docsize WHERE id = ?", missed)?.n).toBe(1);
    expect(fts.integrityProblems()).toEqual([]);
    expect(hitIds(fts, "missed")).toEqual([missed]);
  });

  it("search tops the index up with LIKE over the pending window", () => {
    const { store, fts } = unindexed(50);
    fts.startBackfill();
    fts.backfillStep({ chunkIds: 20 });
    const live = store.add({ content: "shared live", timestamp: 999 });
    const result = fts.search("shared", { limit: 1000 });
    expect(result.route).toBe("fts+like");
    expect(result.hits.length).toBe(51);
    expect(new Set(result.hits.map((h) => h.messageId)).size).toBe(51);
    const newest = fts.search("shared", { sort: "newest", limit: 3 }).hits.map((h) => h.messageId);
    expect(newest).toEqual([live, 50, 49]);
    const page = fts.search("shared", { sort: "oldest", limit: 5, offset: 18 }).hits.map((h) => h.messageId);
    expect(page).toEqual([19, 20, 21, 22, 23]);
    expect(fts.search("token33").hits[0]?.snippet).toContain("«token33»");
    // CJK during a backfill: trigram plus a top-up over the same (non-tool) rows.
    const cjk = fts.search("東京都", { limit: 100 });
    expect(cjk.route).toBe("fts+like");
    const expected = [7, 14, 21, 28, 42, 49]; // multiples of 7 up to 50, minus the tool row 35
    expect(cjk.hits.map((h) => h.messageId).sort((x, y) => x - y)).toEqual(expected);
  });

  it("backfill() yields between chunks, reports progress and honours abort", async () => {
    const { store, fts } = unindexed(100);
    const reports: Array<{ indexed: number; total: number; done: boolean }> = [];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const controller = new AbortController();
    const run = fts.backfill({
      chunkIds: 10,
      signal: controller.signal,
      onProgress: (p) => {
        reports.push(p);
        if (p.indexed >= 40) controller.abort();
      },
    });
    await expect(run).rejects.toThrow();
    expect(meta(store, META_BACKFILL_PROGRESS)).toBe("40");
    await fts.backfill({ chunkIds: 10, onProgress: (p) => reports.push(p) });
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(3);
    expect(reports.at(-1)).toEqual({ indexed: 100, total: 100, done: true });
    const indexed = reports.map((r) => r.indexed);
    expect(indexed).toEqual([...indexed].sort((x, y) => x - y));
    expect(fts.integrityProblems()).toEqual([]);
  });

  it("paces itself: short chunks and pauses while others write, full speed otherwise", () => {
    const alone = { waitedMs: 0, heldMs: 300, othersWrote: false };
    // Quiet steps: the chunk doubles from the second quiet step in a row, up to the maximum.
    expect(pace(alone, 250, 5000, 1, BACKFILL_MIN_CHUNK_IDS)).toEqual({
      chunk: 250,
      pauseMs: 19,
    });
    expect(pace(alone, 250, 5000, 2, BACKFILL_MIN_CHUNK_IDS)).toEqual({
      chunk: 500,
      pauseMs: 19,
    });
    expect(pace(alone, 4000, 5000, 5, BACKFILL_MIN_CHUNK_IDS)).toEqual({
      chunk: 5000,
      pauseMs: 19,
    });
    // Alone, chunks stop doubling once a step holds the lock half a second, and a step that held
    // it past a second is scaled back to one.
    expect(pace({ ...alone, heldMs: 600 }, 4000, 100_000, 5, BACKFILL_MIN_CHUNK_IDS).chunk).toBe(4000);
    expect(pace({ ...alone, heldMs: 2000 }, 4000, 100_000, 5, BACKFILL_MIN_CHUNK_IDS).chunk).toBe(2000);
    // The quiet gap is a sixteenth of the hold, between 1 ms and the contended minimum.
    expect(pace({ ...alone, heldMs: 4 }, 250, 5000, 1, BACKFILL_MIN_CHUNK_IDS).pauseMs).toBe(1);
    expect(pace({ ...alone, heldMs: 2000 }, 250, 5000, 1, BACKFILL_MIN_CHUNK_IDS).pauseMs).toBe(30);
    // Another connection committed since the last step: size the chunk to ~15 ms of lock hold,
    // and pause twice the hold (capped).
    expect(
      pace({ waitedMs: 0, heldMs: 300, othersWrote: true }, 5000, 5000, 0, BACKFILL_MIN_CHUNK_IDS),
    ).toEqual({
      chunk: 250,
      pauseMs: 250,
    });
    // The step had to wait for the lock: same, never below the floor, pause at least 30 ms.
    expect(
      pace({ waitedMs: 80, heldMs: 10, othersWrote: false }, 40, 5000, 0, BACKFILL_MIN_CHUNK_IDS),
    ).toEqual({
      chunk: 50,
      pauseMs: 30,
    });
    // Already short enough: keep the chunk, never grow it while others write.
    expect(pace({ waitedMs: 0, heldMs: 5, othersWrote: true }, 200, 5000, 0, BACKFILL_MIN_CHUNK_IDS)).toEqual(
      {
        chunk: 200,
        pauseMs: 30,
      },
    );
  });
});
