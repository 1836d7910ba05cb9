/**
 * The fast corpus build (corpus-build.ts) must give the store the Store API builds with its
 * FTS triggers live: the same rows, ids and session counters, the same index content, the same
 * search answers, and a clean integrity check.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildStore, type CorpusSummary } from "./corpus/index.js";
import { bulkBuild } from "./corpus-build.js";
import { type Engine, loadEngine, SkipTarget, type TargetId } from "./engine.js";

const SEED = 77;
const MESSAGES = 1500;
const dir = mkdtempSync(join(tmpdir(), "sessiondb-corpus-build-"));
const slowPath = join(dir, "slow.db");
const fastPath = join(dir, "fast.db");
let engine: Engine;
let slow: CorpusSummary;
let fast: CorpusSummary;

/** The engine of the runtime running the tests (Node 24: node:sqlite; Node 20: better-sqlite3). */
async function localEngine(): Promise<Engine> {
  for (const target of ["node-sqlite", "node-better-sqlite3"] as TargetId[]) {
    try {
      return await loadEngine(target);
    } catch (error) {
      if (!(error instanceof SkipTarget)) throw error;
    }
  }
  throw new Error("neither node:sqlite nor better-sqlite3 loads in this runtime");
}

beforeAll(async () => {
  engine = await localEngine();
  const store = engine.openStore(slowPath);
  try {
    slow = buildStore(store, { seed: SEED, messages: MESSAGES, batch: 64 });
  } finally {
    store.close();
  }
  fast = bulkBuild(engine, fastPath, { seed: SEED, messages: MESSAGES, check: true });
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every row of `sql` on both stores. */
function both(sql: string): [unknown[], unknown[]] {
  return [slowPath, fastPath].map((path) => {
    const db = engine.openRaw(path);
    try {
      return db.prepare(sql).all();
    } finally {
      db.close();
    }
  }) as [unknown[], unknown[]];
}

/** For each index: the token instances (term, row, column, offset) of each store, read through
 * FTS5's own vocabulary table, and how many instances are in one store only. Compared inside
 * SQLite over the attached fast store (a JS pass over every row took twice as long): an
 * instance is unique within its index, so one that is not counted twice is in one store only. */
function indexDiff(): Record<string, { slow: number; fast: number; inOneOnly: number }> {
  const db = engine.openRaw(slowPath);
  try {
    db.exec(`ATTACH DATABASE '${fastPath.replaceAll("'", "''")}' AS fast`);
    const count = (sql: string) => Number(db.prepare(sql).get()?.n);
    const out: Record<string, { slow: number; fast: number; inOneOnly: number }> = {};
    for (const table of ["messages_fts", "messages_fts_trigram"]) {
      db.exec(`CREATE VIRTUAL TABLE temp.s_${table} USING fts5vocab(main, ${table}, instance)`);
      db.exec(`CREATE VIRTUAL TABLE temp.f_${table} USING fts5vocab(fast, ${table}, instance)`);
      const cols = "term, doc, col, offset";
      out[table] = {
        slow: count(`SELECT count(*) AS n FROM temp.s_${table}`),
        fast: count(`SELECT count(*) AS n FROM temp.f_${table}`),
        inOneOnly: count(
          `SELECT count(*) AS n FROM (SELECT 1 FROM (SELECT ${cols} FROM temp.s_${table} UNION ALL SELECT ${cols} FROM temp.f_${table}) GROUP BY ${cols} HAVING count(*) <> 2)`,
        ),
      };
    }
    return out;
  } finally {
    db.close();
  }
}

describe("bulkBuild", () => {
  it("reports what buildStore reports (ids of every token included)", () => {
    const { times, ...summary } = fast as CorpusSummary & { times: unknown };
    expect(times).toBeDefined();
    expect(summary).toEqual(slow);
  });

  it("stores the same rows in every table outside the index (session counters and ids included)", () => {
    const [tables] = both(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'messages_fts%' ORDER BY name",
    );
    const names = (tables as Array<{ name: string }>).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["messages", "sessions", "sqlite_sequence", "state_meta"]));
    for (const table of names) {
      const [a, b] = both(`SELECT * FROM ${table} ORDER BY rowid`);
      expect(b.length, table).toBe(a.length);
      expect(b, table).toEqual(a);
    }
    const [sessions] = both("SELECT count(*) AS n FROM sessions");
    expect(sessions).toEqual([{ n: slow.sessions }]);
  });

  it("leaves the same index state: triggers and sizes", () => {
    const [trigA, trigB] = both("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name");
    expect(trigA.length).toBeGreaterThan(0);
    expect(trigB).toEqual(trigA);
    for (const table of ["messages_fts_docsize", "messages_fts_trigram_docsize"]) {
      const [a, b] = both(`SELECT * FROM ${table} ORDER BY id`);
      expect(b, table).toEqual(a);
    }
  });

  it("indexes exactly the same tokens", () => {
    const diff = indexDiff();
    for (const [table, d] of Object.entries(diff)) {
      expect(d.slow, table).toBeGreaterThan(100_000);
      expect({ ...d, table }).toEqual({ table, slow: d.slow, fast: d.slow, inOneOnly: 0 });
    }
    expect(Object.keys(diff)).toEqual(["messages_fts", "messages_fts_trigram"]);
  });

  it("answers every search route the same", () => {
    const tokens = slow.tokens.filter((t) => t.indexedByFts).slice(0, 5);
    const hidden = slow.tokens.find((t) => !t.indexedByFts);
    const queries: Array<[string, object]> = [
      ["migration", {}],
      ['"connection refused"', {}],
      ["nnection", { substring: true }],
      ["数据库", {}],
      ["migration", { roles: ["user"] }],
      ["migration", { sort: "newest" }],
      ...tokens.map((t): [string, object] => [t.token, {}]),
      ...(hidden ? [[hidden.token, { roles: ["tool"] }] as [string, object]] : []),
    ];
    const answers = [slowPath, fastPath].map((path) => {
      const store = engine.openStore(path, { readOnly: true });
      try {
        return queries.map(([q, options]) => {
          const { hits, route } = store.search(q, options);
          return { q, route, hits };
        });
      } finally {
        store.close();
      }
    });
    expect(answers[0]?.some((a) => a.route === "fts")).toBe(true);
    expect(answers[0]?.every((a) => a.hits.length > 0)).toBe(true);
    expect(answers[1]).toEqual(answers[0]);
  });

  it("passes the store's integrity check (the slow build too)", () => {
    for (const path of [slowPath, fastPath]) {
      const store = engine.openStore(path);
      try {
        expect(store.checkIntegrity()).toEqual({ ok: true, problems: [] });
        expect(store.ftsStatus().state).toBe("ready");
      } finally {
        store.close();
      }
    }
  });
});
