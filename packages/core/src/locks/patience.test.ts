import { describe, expect, test } from "vitest";
import { tempDir, testDriver } from "../../test/support/driver.js";
import { MAX_WAIT_MS } from "../constants.js";
import { sleepSync } from "../engine/sleep.js";
import { SqliteError, StoreBusyError } from "../errors.js";
import { jitterBand, withPatience } from "./patience.js";

const busy = () => new SqliteError("BUSY", "database is locked");
const locked = () => new SqliteError("LOCKED", "database table is locked");

/** A fake clock whose sleep advances time and records every interval. */
function fakeTime(start = 1_000_000) {
  let t = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
    elapsed: () => t - start,
  };
}

describe("withPatience", () => {
  test("returns at once when the first attempt succeeds", () => {
    const time = fakeTime();
    expect(withPatience(() => 42, { budgetMs: 1000, jitter: "write", ...time })).toBe(42);
    expect(time.sleeps).toEqual([]);
  });

  test("retries BUSY and LOCKED until the attempt succeeds", () => {
    const time = fakeTime();
    let calls = 0;
    const result = withPatience(
      () => {
        calls++;
        if (calls === 1) throw busy();
        if (calls === 2) throw locked();
        return "done";
      },
      { budgetMs: 20_000, jitter: "write", random: () => 0, ...time },
    );
    expect(result).toBe("done");
    expect(calls).toBe(3);
    expect(time.sleeps).toEqual([20, 20]);
  });

  test("a non-contention error propagates immediately, without a sleep", () => {
    const time = fakeTime();
    const failure = new SqliteError("READONLY", "attempt to write a readonly database");
    let calls = 0;
    expect(() =>
      withPatience(
        () => {
          calls++;
          throw failure;
        },
        { budgetMs: 20_000, jitter: "write", ...time },
      ),
    ).toThrow(failure);
    expect(calls).toBe(1);
    expect(time.sleeps).toEqual([]);
    const plain = new TypeError("bug");
    expect(() =>
      withPatience(
        () => {
          throw plain;
        },
        { budgetMs: 20_000, jitter: "open", ...time },
      ),
    ).toThrow(plain);
  });

  test("never sleeps past the deadline; the last attempt happens exactly at it", () => {
    for (const random of [() => 0, () => 0.5, () => 0.999999]) {
      for (const budgetMs of [0, 1, 17, 333, 2_100, 20_000]) {
        const time = fakeTime();
        const attemptsAt: number[] = [];
        let error: unknown;
        try {
          withPatience(
            () => {
              attemptsAt.push(time.elapsed());
              throw busy();
            },
            { budgetMs, jitter: "write", random, ...time },
          );
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(StoreBusyError);
        expect(time.elapsed()).toBe(budgetMs);
        expect(attemptsAt.at(-1)).toBe(budgetMs);
        expect(attemptsAt.every((at) => at <= budgetMs)).toBe(true);
        expect((error as StoreBusyError).waitedMs).toBe(budgetMs);
      }
    }
  });

  test("budget 0 is one attempt and no sleep", () => {
    const time = fakeTime();
    let calls = 0;
    expect(() =>
      withPatience(
        () => {
          calls++;
          throw busy();
        },
        { budgetMs: 0, jitter: "write", ...time },
      ),
    ).toThrow(StoreBusyError);
    expect(calls).toBe(1);
    expect(time.sleeps).toEqual([]);
  });

  test("a NaN or negative budget is one attempt, never a spin; an infinite one ends at MAX_WAIT_MS", () => {
    for (const budgetMs of [Number.NaN, -1, Number.NEGATIVE_INFINITY]) {
      const time = fakeTime();
      let calls = 0;
      expect(() =>
        withPatience(
          () => {
            // Without the guard a NaN deadline is never reached: stop the runaway loop here.
            if (++calls > 1_000) throw new Error(`spun for budget ${budgetMs}`);
            throw busy();
          },
          { budgetMs, jitter: "write", ...time },
        ),
      ).toThrow(StoreBusyError);
      expect(calls).toBe(1);
      expect(time.sleeps).toEqual([]);
    }
    const time = fakeTime();
    expect(() =>
      withPatience(
        () => {
          throw busy();
        },
        { budgetMs: Number.POSITIVE_INFINITY, jitter: "open", random: () => 0.999999, ...time },
      ),
    ).toThrow(StoreBusyError);
    expect(time.elapsed()).toBe(MAX_WAIT_MS);
  });

  test("write jitter: 20–150 ms during the first 2 s, then 250–1000 ms", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return (seed - 1) / 2147483646;
    };
    const time = fakeTime();
    const log: Array<{ at: number; ms: number }> = [];
    const sleep = (ms: number) => {
      log.push({ at: time.elapsed(), ms });
      time.sleep(ms);
    };
    expect(() =>
      withPatience(
        () => {
          throw busy();
        },
        { budgetMs: 60_000, jitter: "write", random, now: time.now, sleep },
      ),
    ).toThrow(StoreBusyError);
    const early = log.filter((s) => s.at < 2_000);
    const late = log.filter((s) => s.at >= 2_000).slice(0, -1); // the last one is cut at the deadline
    expect(early.length).toBeGreaterThan(10);
    expect(late.length).toBeGreaterThan(50);
    for (const s of early) {
      expect(s.ms).toBeGreaterThanOrEqual(20);
      expect(s.ms).toBeLessThanOrEqual(150);
    }
    for (const s of late) {
      expect(s.ms).toBeGreaterThanOrEqual(250);
      expect(s.ms).toBeLessThanOrEqual(1000);
    }
    // The band is actually used, not a single value.
    expect(new Set(late.map((s) => s.ms)).size).toBeGreaterThan(10);
  });

  test("open jitter: 250–1000 ms from the start; band edges", () => {
    expect(jitterBand("open", 0)).toEqual([250, 1000]);
    expect(jitterBand("write", 1_999)).toEqual([20, 150]);
    expect(jitterBand("write", 2_000)).toEqual([250, 1000]);
    for (const [r, expected] of [
      [0, 250],
      [0.999999, 1000],
    ] as const) {
      const time = fakeTime();
      let calls = 0;
      withPatience(
        () => {
          if (calls++ === 0) throw busy();
          return true;
        },
        { budgetMs: 20_000, jitter: "open", random: () => r, ...time },
      );
      expect(time.sleeps).toEqual([expected]);
    }
  });

  test("an out-of-range random source cannot stretch a sleep past the band", () => {
    const time = fakeTime();
    let calls = 0;
    withPatience(
      () => {
        if (calls++ === 0) throw busy();
        return true;
      },
      { budgetMs: 20_000, jitter: "write", random: () => 1, ...time },
    );
    expect(time.sleeps).toEqual([150]);
  });

  test("StoreBusyError says how long it waited, that data is intact, the last error and the holder", () => {
    const time = fakeTime();
    let error: StoreBusyError | undefined;
    try {
      withPatience(
        () => {
          throw busy();
        },
        {
          budgetMs: 20_000,
          jitter: "write",
          random: () => 0.5,
          describeHolder: () => "The FTS admission lock is held by pid 4242 (node, better-sqlite3).",
          ...time,
        },
      );
    } catch (caught) {
      error = caught as StoreBusyError;
    }
    expect(error).toBeInstanceOf(StoreBusyError);
    expect(error?.code).toBe("STORE_BUSY");
    expect(error?.waitedMs).toBe(20_000);
    expect(error?.message).toContain("20.0 s");
    expect(error?.message).toContain("intact");
    expect(error?.message).toContain("database is locked");
    expect(error?.message).toContain("pid 4242");
    expect(error?.cause).toBeInstanceOf(SqliteError);
    expect((error?.cause as SqliteError | undefined)?.resultCode).toBe("BUSY");
  });

  test("a holder description that throws does not hide the busy error", () => {
    const time = fakeTime();
    expect(() =>
      withPatience(
        () => {
          throw busy();
        },
        {
          budgetMs: 100,
          jitter: "write",
          describeHolder: () => {
            throw new Error("cannot read holder");
          },
          ...time,
        },
      ),
    ).toThrow(StoreBusyError);
  });
});

describe("sleepSync", () => {
  test("blocks for about the asked time; non-positive is a no-op", () => {
    const t0 = performance.now();
    sleepSync(60);
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(55);
    expect(took).toBeLessThan(1000);
    const t1 = performance.now();
    sleepSync(0);
    sleepSync(-5);
    sleepSync(Number.NaN);
    expect(performance.now() - t1).toBeLessThan(20);
  });
});

describe("withPatience on a real lock", () => {
  test("a write blocked by another connection's transaction succeeds once it commits", () => {
    const tmp = tempDir("sessiondb-patience-");
    try {
      const holder = testDriver.open(tmp.file("p.db"), { readOnly: false });
      holder.exec("PRAGMA journal_mode = WAL; CREATE TABLE t(x)");
      holder.exec("BEGIN IMMEDIATE; INSERT INTO t VALUES (1)");
      const writer = testDriver.open(tmp.file("p.db"), { readOnly: false });
      writer.exec("PRAGMA busy_timeout = 0");
      let attempts = 0;
      const inserted = withPatience(
        () => {
          attempts++;
          // The holder commits while we sleep between attempts: the third attempt gets in.
          if (attempts === 3) holder.exec("COMMIT");
          writer.exec("BEGIN IMMEDIATE");
          try {
            const result = writer.prepare("INSERT INTO t VALUES (2)").run();
            writer.exec("COMMIT");
            return result.changes;
          } catch (error) {
            writer.exec("ROLLBACK");
            throw error;
          }
        },
        { budgetMs: 5_000, jitter: "write" },
      );
      expect(inserted).toBe(1);
      expect(attempts).toBe(3);
      expect(writer.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 2 });
      holder.close();
      writer.close();
    } finally {
      tmp.cleanup();
    }
  });

  test("a lock held for the whole budget ends in StoreBusyError after about the budget", () => {
    const tmp = tempDir("sessiondb-patience-");
    try {
      const holder = testDriver.open(tmp.file("p.db"), { readOnly: false });
      holder.exec("PRAGMA journal_mode = WAL; CREATE TABLE t(x); BEGIN IMMEDIATE");
      const writer = testDriver.open(tmp.file("p.db"), { readOnly: false });
      const started = Date.now();
      expect(() =>
        withPatience(() => writer.exec("BEGIN IMMEDIATE"), { budgetMs: 400, jitter: "write" }),
      ).toThrow(StoreBusyError);
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(390);
      expect(took).toBeLessThan(1_500);
      holder.exec("ROLLBACK");
      holder.close();
      writer.close();
    } finally {
      tmp.cleanup();
    }
  });
});

describe("the StoreBusyError message", () => {
  test("a last error that ends its own sentence gets one full stop, not two", () => {
    const time = fakeTime();
    const sentence = new SqliteError("BUSY", "The server is unreachable. Start it or check the URL.");
    let error: unknown;
    try {
      withPatience(
        () => {
          throw sentence;
        },
        { budgetMs: 100, jitter: "write", ...time },
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StoreBusyError);
    expect((error as Error).message).toContain(
      "Last lock error: The server is unreachable. Start it or check the URL.",
    );
    expect((error as Error).message).not.toContain("..");
    // A message without its own full stop gets one.
    expect(() =>
      withPatience(
        () => {
          throw busy();
        },
        { budgetMs: 100, jitter: "write", ...fakeTime() },
      ),
    ).toThrow(/Last lock error: database is locked\./);
  });
});
