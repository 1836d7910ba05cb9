import { afterEach, describe, expect, it } from "vitest";
import { tempDir, testDriver } from "../../test/support/driver.js";
import { FtsIndex, faultyDriver, openTestStore, type TestStore } from "../../test/support/fts-context.js";
import { SqliteError } from "../errors.js";
import { acquireAdmission } from "../locks/admission.js";
import { META_FTS_STALE, META_TRIGRAM_UNAVAILABLE } from "./constants.js";
import { FTS_STATE_KEYS, ftsNeedsRepair } from "./state.js";

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanup.reverse()) fn();
  cleanup = [];
});

function newPath(): string {
  const dir = tempDir();
  cleanup.push(dir.cleanup);
  return dir.file("state.db");
}

function open(
  path: string,
  options: { driver?: typeof testDriver; now?: () => number; recovery?: { baseMs?: number } } = {},
): { store: TestStore; fts: FtsIndex } {
  const store = openTestStore(path, options);
  cleanup.push(() => store.close());
  const fts = new FtsIndex(store.ctx, { recovery: options.recovery });
  store.write(() => fts.install());
  return { store, fts };
}

function hold(path: string): () => void {
  const admission = acquireAdmission(testDriver, path, { timeoutMs: 0 });
  if (!admission.admitted) throw new Error(admission.message);
  cleanup.push(() => admission.release());
  return () => admission.release();
}

const stateMap = (store: TestStore) =>
  new Map(
    store.conn
      .prepare(`SELECT key, value FROM state_meta WHERE key IN (${FTS_STATE_KEYS.map(() => "?").join(", ")})`)
      .all(...FTS_STATE_KEYS)
      .map((r) => [String(r.key), String(r.value)] as const),
  );

describe("repair at open and deferred recovery", () => {
  it("a fresh install is flagged for repair in state_meta until the index is built", () => {
    const { store, fts } = open(newPath());
    expect(ftsNeedsRepair(stateMap(store))).toBe(true); // a crash here: the next open's fast path repairs
    expect(fts.status().state).toBe("stale");
    fts.repairAtOpen();
    expect(ftsNeedsRepair(stateMap(store))).toBe(false);
    store.write(() => fts.install()); // a later slow path leaves a built index alone
    expect(ftsNeedsRepair(stateMap(store))).toBe(false);
    expect(fts.status().state).toBe("ready");
  });

  it("repair denied by a held admission lock: breadcrumb, no triggers, LIKE search; the fast path sees it", () => {
    const path = newPath();
    const release = hold(path);
    const { store, fts } = open(path);
    fts.repairAtOpen();
    expect(fts.status()).toMatchObject({
      state: "stale",
      reason: expect.stringMatching(/held by another process/),
    });
    expect(
      store.get(
        "SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'messages_fts%'",
      )?.n,
    ).toBe(0);
    const id = store.add({ content: "written while deferred" });
    expect(fts.search("deferred")).toMatchObject({ route: "like", hits: [{ messageId: id }] });
    expect(ftsNeedsRepair(stateMap(store))).toBe(true);
    expect(fts.rebuild({ timeoutMs: 0 })).toMatchObject({
      rebuilt: false,
      reason: expect.stringMatching(/held/),
    });
    release();
    fts.repairAtOpen();
    expect(fts.status().state).toBe("ready");
    expect(ftsNeedsRepair(stateMap(store))).toBe(false);
    expect(fts.search("deferred")).toMatchObject({ route: "fts", hits: [{ messageId: id }] });
    expect(fts.integrityProblems()).toEqual([]);
  });

  it("retryDeferredRecovery: no-op unless stale, rate-limited 60 s → 120 s, reset on success", () => {
    const path = newPath();
    let now = 0;
    const { store, fts } = open(path, { now: () => now });
    fts.repairAtOpen();
    expect(fts.retryDeferredRecovery()).toBe(false); // ready: nothing to do
    const detach = () => expect(fts.failOpen(new SqliteError("CORRUPT_VTAB", "fts5: corrupt"))).toBe(true);

    detach();
    let release = hold(path);
    expect(fts.retryDeferredRecovery()).toBe(false); // denied at t=0 → next attempt at 60 s
    release();
    now = 59_999;
    expect(fts.retryDeferredRecovery()).toBe(false); // lock free, but not due
    expect(fts.status().state).toBe("stale");
    now = 60_000;
    release = hold(path);
    expect(fts.retryDeferredRecovery()).toBe(false); // denied again → interval doubles to 120 s
    release();
    now = 179_999;
    expect(fts.retryDeferredRecovery()).toBe(false);
    now = 180_000;
    expect(fts.retryDeferredRecovery()).toBe(true);
    expect(fts.status().state).toBe("ready");
    expect(store.get("SELECT value FROM state_meta WHERE key = ?", META_FTS_STALE)).toBeUndefined();

    detach(); // after a success the backoff starts again from the base
    release = hold(path);
    expect(fts.retryDeferredRecovery()).toBe(false);
    release();
    now = 180_000 + 59_999;
    expect(fts.retryDeferredRecovery()).toBe(false);
    now = 180_000 + 60_000;
    expect(fts.retryDeferredRecovery()).toBe(true);
  });

  it("a 0 s base retries at the next tick once, then waits at least the 1 s floor", () => {
    const path = newPath();
    let now = 1_000;
    const { fts } = open(path, { now: () => now, recovery: { baseMs: 0 } });
    const release = hold(path);
    fts.repairAtOpen(); // denied: next attempt due at once
    expect(fts.retryDeferredRecovery()).toBe(false); // denied again: next in 1 s
    release();
    expect(fts.retryDeferredRecovery()).toBe(false);
    now += 1_000;
    expect(fts.retryDeferredRecovery()).toBe(true);
  });

  it("rebuild waits for the admission lock within its timeout and clears markers", () => {
    const path = newPath();
    const { store, fts } = open(path);
    fts.repairAtOpen();
    store.add({ content: "one" });
    fts.startBackfill();
    expect(fts.status().state).toBe("backfilling");
    expect(fts.rebuild({ timeoutMs: 0 })).toEqual({ rebuilt: true });
    expect(fts.status()).toEqual({ state: "ready", trigram: true });
    expect(fts.integrityProblems()).toEqual([]);
  });
});

describe("degraded SQLite builds", () => {
  const reject = (pattern: RegExp, message: string) => (sql: string) =>
    pattern.test(sql) ? new SqliteError("ERROR", message) : undefined;

  it("trigram unavailable: the base index works, recorded once, no repair on later opens", () => {
    const path = newPath();
    const seen: string[] = [];
    const driver = faultyDriver(testDriver, {
      reject: reject(/tokenize='trigram'/, "no such tokenizer: trigram"),
      seen,
    });
    const first = open(path, { driver });
    first.fts.repairAtOpen();
    expect(first.fts.status()).toEqual({ state: "ready", trigram: false });
    expect(
      String(first.store.get("SELECT value FROM state_meta WHERE key = ?", META_TRIGRAM_UNAVAILABLE)?.value),
    ).toMatch(/^3\.\d+\.\d+: no such tokenizer/);
    const tokyo = first.store.add({ content: "東京都に行きました" });
    const word = first.store.add({ content: "plain words" });
    expect(first.fts.search("東京都")).toMatchObject({ route: "like", hits: [{ messageId: tokyo }] });
    expect(first.fts.search("words", { substring: true })).toMatchObject({
      route: "like",
      hits: [{ messageId: word }],
    });
    expect(first.fts.search("words")).toMatchObject({ route: "fts", hits: [{ messageId: word }] });
    expect(first.fts.integrityProblems()).toEqual([]);
    expect(ftsNeedsRepair(stateMap(first.store))).toBe(false);

    seen.length = 0;
    const second = open(path, { driver });
    second.fts.repairAtOpen();
    expect(seen.filter((sql) => /tokenize='trigram'|'rebuild'/.test(sql))).toEqual([]); // no retry, no rebuild
    expect(second.fts.status()).toEqual({ state: "ready", trigram: false });
  });

  it("FTS5 missing: the store works, status unavailable, search by LIKE", () => {
    const path = newPath();
    const driver = faultyDriver(testDriver, { reject: reject(/USING fts5/, "no such module: fts5") });
    const { store, fts } = open(path, { driver });
    fts.repairAtOpen();
    expect(fts.status()).toEqual({ state: "unavailable", trigram: false });
    const id = store.add({ content: "still searchable" });
    expect(fts.search("searchable")).toMatchObject({ route: "like", hits: [{ messageId: id }] });
    expect(fts.rebuild()).toMatchObject({
      rebuilt: false,
      reason: expect.stringMatching(/FTS5 is not available/),
    });
    expect(fts.integrityProblems()).toEqual([]);
    expect(fts.retryDeferredRecovery()).toBe(false);
    fts.startBackfill();
    expect(fts.backfillStep()).toBe(false);
  });

  it("a read-only open searches and reports without writing", () => {
    const path = newPath();
    const { store, fts } = open(path);
    fts.repairAtOpen();
    const id = store.add({ content: "read me" });
    const ro = openTestStore(path, { readOnly: true });
    cleanup.push(() => ro.close());
    const rofts = new FtsIndex(ro.ctx);
    expect(rofts.search("read")).toMatchObject({ route: "fts", hits: [{ messageId: id }] });
    expect(rofts.status().state).toBe("ready");
    expect(rofts.integrityProblems()).toEqual([]);
    expect(rofts.failOpen(new SqliteError("CORRUPT_VTAB", "x"))).toBe(false);
    expect(rofts.rebuild()).toMatchObject({ rebuilt: false });
  });
});
