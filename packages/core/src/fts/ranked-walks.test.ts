import { afterEach, describe, expect, it } from "vitest";
import { tempDir, wrappingDriver } from "../../test/support/driver.js";
import { FtsIndex, openTestStore, type TestStore } from "../../test/support/fts-context.js";
import type { SqliteDriver } from "../driver.js";
import { type Op, remember } from "../engine/effects.js";
import { runSync } from "../engine/run-sync.js";
import { type RankedList, type RankedListKey, RankedWalks, resumeAt } from "./ranked-walks.js";
import { RANKED_WALKS_KEY } from "./search.js";

const list = (ids: number[], complete = true): RankedList => ({
  ids: Float64Array.from(ids),
  ranks: Float64Array.from(ids, (_, i) => -10 + i),
  complete,
});
const key = (fingerprint: string, stamp = "messages_fts:a", maxId = 99): RankedListKey => ({
  fingerprint,
  stamp,
  maxId,
});

describe("RankedWalks", () => {
  it("keeps at most its lists and its hits, least recently used out first", () => {
    const walks = new RankedWalks(2, 10);
    walks.put(key("a"), list([1, 2, 3]));
    walks.put(key("b"), list([4, 5]));
    expect(walks.get(key("a"))?.ids).toEqual(Float64Array.from([1, 2, 3])); // a is now the newest
    walks.put(key("c"), list([6]));
    expect(walks.get(key("b"))).toBeUndefined();
    expect(walks.size).toEqual({ lists: 2, hits: 4 });
    walks.put(key("d"), list([1, 2, 3, 4, 5, 6, 7, 8])); // 3 + 1 + 8 > 10: the older one (a) goes
    expect(walks.get(key("a"))).toBeUndefined();
    expect(walks.size).toEqual({ lists: 2, hits: 9 });
    walks.put(key("e"), list(Array.from({ length: 11 }, (_, i) => i))); // longer than the bound
    expect(walks.get(key("e"))).toBeUndefined();
    expect(walks.size).toEqual({ lists: 2, hits: 9 });
  });

  it("a list is the one of its search, index state and walk bound; older states of the index go", () => {
    const walks = new RankedWalks(8, 100);
    walks.put(key("a"), list([1]));
    walks.put(key("b", "messages_fts_trigram:x"), list([2]));
    expect(walks.get(key("a", "messages_fts:a", 98))).toBeUndefined();
    expect(walks.get(key("a", "messages_fts:b"))).toBeUndefined();
    walks.put(key("c", "messages_fts:b"), list([3])); // the word index moved on: "a" can never match again
    expect(walks.get(key("a"))).toBeUndefined();
    expect(walks.get(key("b", "messages_fts_trigram:x"))?.ids).toEqual(Float64Array.from([2]));
    walks.delete(key("c", "messages_fts:b"));
    expect(walks.size).toEqual({ lists: 1, hits: 1 });
    // A refused list answers no page: a walk resumes nowhere in it, and seeks.
    walks.refuse(key("d", "messages_fts:b"));
    const refused = walks.get(key("d", "messages_fts:b"));
    expect(refused && resumeAt(refused, 1, 3)).toBeUndefined();
  });

  it("resumes after the cursor's last hit, by position or by id", () => {
    const l = list([5, 3, 9, 1]);
    expect(resumeAt(l, 2, 3)).toBe(2);
    expect(resumeAt(l, 7, 9)).toBe(3); // an offset-started walk whose count does not match
    expect(resumeAt(l, 4, 1)).toBe(4);
    expect(resumeAt(list([5, 3], false), 3, 9)).toBeUndefined();
  });
});

// biome-ignore lint/correctness/useYield: `remember` takes an operation; this one runs no statement.
function* smallWalks(): Op<RankedWalks> {
  return new RankedWalks(8, 10);
}

/** The test driver, logging the text of every statement it runs. */
function loggingDriver(log: string[]): SqliteDriver {
  return wrappingDriver((sql, statement) => {
    const logged =
      <A extends unknown[], R>(run: (...params: A) => R) =>
      (...params: A): R => {
        log.push(sql);
        return run(...params);
      };
    return {
      run: logged(statement.run.bind(statement)),
      get: logged(statement.get.bind(statement)),
      all: logged(statement.all.bind(statement)),
    };
  });
}

describe("statements per page", () => {
  let dir: ReturnType<typeof tempDir> | undefined;
  let store: TestStore | undefined;
  afterEach(() => {
    store?.close();
    dir?.cleanup();
  });

  function open(): { fts: FtsIndex; store: TestStore; log: string[] } {
    const log: string[] = [];
    dir = tempDir();
    store = openTestStore(dir.file("state.db"), { driver: loggingDriver(log) });
    const fts = new FtsIndex(store.ctx);
    store.write(() => fts.install());
    fts.repairAtOpen();
    return { fts, store, log };
  }

  /** Statements that rank every match of the word index (a first page, a seek, a ranking). */
  const rankings = (log: string[]) => log.filter((sql) => /ORDER BY messages_fts\.rank/.test(sql)).length;

  it("a rank walk ranks every match twice in all, however many pages it has", () => {
    const { fts, store: s, log } = open();
    for (let i = 0; i < 60; i++)
      s.add({ content: `${"flamingo ".repeat(1 + (i % 5))}${"pad ".repeat(i % 7)}` });
    const expected = fts.search("flamingo", { limit: 1000 }).hits.map((h) => h.messageId);
    log.length = 0;
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = fts.search("flamingo", { limit: 7, ...(cursor ? { cursor } : {}) });
      seen.push(...page.hits.map((h) => h.messageId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(expected);
    expect(pages).toBe(9);
    // The first page, then the ranking its first cursor page reads; the other pages read rows.
    expect(rankings(log)).toBe(2);
    expect(log.filter((sql) => sql.includes("FROM json_each(?) AS p CROSS JOIN messages m")).length).toBe(8);
  });

  it("a ranking longer than the bound is kept in part, and the pages past it seek", () => {
    const { fts, store: s, log } = open();
    // This connection keeps at most 10 hits (what `remember` holds first is what it answers).
    runSync(s.ctx, remember(RANKED_WALKS_KEY, smallWalks));
    for (let i = 0; i < 40; i++)
      s.add({ content: `${"flamingo ".repeat(1 + (i % 5))}${"pad ".repeat(i % 7)}` });
    const expected = fts.search("flamingo", { limit: 1000 }).hits.map((h) => h.messageId);
    log.length = 0;
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = fts.search("flamingo", { limit: 4, ...(cursor ? { cursor } : {}) });
      seen.push(...page.hits.map((h) => h.messageId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(expected);
    // Pages 2 and 3 (hits 5–12 would pass the 10 kept) — page 2 from the list, then seeks.
    expect(log.filter((sql) => sql.includes("FROM json_each(?) AS p CROSS JOIN messages m")).length).toBe(1);
    expect(log.filter((sql) => /rank > \? OR/.test(sql)).length).toBe(9);
  });

  it("a kept ranking whose row no longer matches is refused, and the walk seeks from there", () => {
    const { fts, store: s, log } = open();
    for (let i = 0; i < 30; i++) s.add({ session: "a", content: `flamingo ${"pad ".repeat(i % 7)}` });
    s.add({ session: "b", content: "unrelated" });
    const first = fts.search("flamingo", { sessionId: "a", limit: 4 });
    const second = fts.search("flamingo", { sessionId: "a", limit: 4, cursor: first.nextCursor });
    const seen = [...first.hits, ...second.hits].map((h) => h.messageId);
    // No API moves a message to another session, and the index does not hold the session: the
    // kept ranking still names the row, the index stamp is unchanged.
    const ranking = fts.search("flamingo", { sessionId: "a", limit: 1000 }).hits.map((h) => h.messageId);
    const moved = ranking[10] as number;
    s.write(() => s.conn.prepare("UPDATE messages SET session_id = 'b' WHERE id = ?").run(moved));
    s.write(() =>
      s.conn.prepare("INSERT OR IGNORE INTO sessions(id, source, started_at) VALUES ('b', 'cli', 0)").run(),
    );
    log.length = 0;
    const rest: number[] = [];
    let cursor = second.nextCursor;
    while (cursor) {
      const page = fts.search("flamingo", { sessionId: "a", limit: 4, cursor });
      rest.push(...page.hits.map((h) => h.messageId));
      cursor = page.nextCursor;
    }
    expect(rest).toEqual(ranking.slice(seen.length).filter((id) => id !== moved));
    // The next page named the moved row and was refused (one try); it and every later page sought.
    expect(log.filter((sql) => sql.includes("FROM json_each(?) AS p CROSS JOIN messages m")).length).toBe(1);
    expect(log.filter((sql) => /rank > \? OR/.test(sql)).length).toBe(Math.ceil((rest.length + 1) / 4));
  });

  it("a first page reads no ranks: its next page takes them from the ranking", () => {
    const { fts, store: s, log } = open();
    for (let i = 0; i < 30; i++) s.add({ content: `flamingo ${"pad ".repeat(i % 7)}` });
    const expected = fts.search("flamingo", { limit: 1000 }).hits.map((h) => h.messageId);
    log.length = 0;
    const first = fts.search("flamingo", { limit: 5 });
    // The rank column would have FTS5 gather bm25's statistics a second time on a first page.
    expect(log.filter((sql) => /\.rank AS rank/.test(sql))).toEqual([]);
    const second = fts.search("flamingo", { limit: 5, cursor: first.nextCursor });
    const third = fts.search("flamingo", { limit: 5, cursor: second.nextCursor });
    expect([...first.hits, ...second.hits, ...third.hits].map((h) => h.messageId)).toEqual(
      expected.slice(0, 15),
    );
    // The ranking (ids and ranks) once; both cursor pages from it.
    expect(rankings(log)).toBe(2);
    expect(log.filter((sql) => sql.includes("FROM json_each(?) AS p CROSS JOIN messages m")).length).toBe(2);
  });

  it("a first page's cursor whose kept ranking is refused goes on by position, then seeks", () => {
    const { fts, store: s, log } = open();
    for (let i = 0; i < 30; i++) s.add({ session: "a", content: `flamingo ${"pad ".repeat(i % 7)}` });
    s.add({ session: "b", content: "unrelated" });
    // A walk of the same search keeps the ranking of this index state and walk bound.
    const earlier = fts.search("flamingo", { sessionId: "a", limit: 4 });
    fts.search("flamingo", { sessionId: "a", limit: 4, cursor: earlier.nextCursor });
    // A row of that ranking's second page leaves the search; the index stamp does not change.
    const moved = fts.search("flamingo", { sessionId: "a", limit: 1000 }).hits[5]?.messageId as number;
    s.write(() => s.conn.prepare("UPDATE messages SET session_id = 'b' WHERE id = ?").run(moved));
    s.write(() =>
      s.conn.prepare("INSERT OR IGNORE INTO sessions(id, source, started_at) VALUES ('b', 'cli', 0)").run(),
    );
    const expected = fts.search("flamingo", { sessionId: "a", limit: 1000 }).hits.map((h) => h.messageId);
    const first = fts.search("flamingo", { sessionId: "a", limit: 4 });
    log.length = 0;
    const seen = first.hits.map((h) => h.messageId);
    let cursor = first.nextCursor;
    while (cursor) {
      const page = fts.search("flamingo", { sessionId: "a", limit: 4, cursor });
      seen.push(...page.hits.map((h) => h.messageId));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(expected);
    // Page 2: the kept ranking names the moved row (refused), so it goes by position and reads
    // ranks; every later page seeks past the last rank.
    expect(log.filter((sql) => sql.includes("FROM json_each(?) AS p CROSS JOIN messages m")).length).toBe(1);
    const byPosition = log.filter((sql) => /\.rank AS rank/.test(sql) && !/rank > \? OR/.test(sql));
    expect(byPosition.filter((sql) => /LIMIT \d+ OFFSET \?/.test(sql)).length).toBe(1);
    expect(log.filter((sql) => /rank > \? OR/.test(sql)).length).toBe(Math.ceil(expected.length / 4) - 2);
  });

  it("after a write the walk goes on by position, without its list", () => {
    const { fts, store: s, log } = open();
    for (let i = 0; i < 30; i++) s.add({ content: `flamingo ${"pad ".repeat(i % 7)}` });
    const first = fts.search("flamingo", { limit: 5 });
    const second = fts.search("flamingo", { limit: 5, cursor: first.nextCursor }); // reads the list
    s.add({ content: "flamingo flamingo flamingo" }); // every rank moves
    log.length = 0;
    const third = fts.search("flamingo", { limit: 5, cursor: second.nextCursor });
    expect(log.some((sql) => sql.includes("json_each(?) AS p"))).toBe(false);
    expect(log.some((sql) => /ORDER BY messages_fts\.rank LIMIT \d+ OFFSET \?/.test(sql))).toBe(true);
    expect(third.hits.map((h) => h.messageId)).toEqual(
      fts
        .search("flamingo", { limit: 1000 })
        .hits.map((h) => h.messageId)
        .filter((id) => id <= 30)
        .slice(10, 15),
    );
  });

  it("LIKE snippets cost a statement per column and term still unresolved, not one per hit", () => {
    const { fts, store: s, log } = open();
    for (let i = 0; i < 25; i++) s.add({ content: `${"前".repeat(i)}数据库连接失败 ${i}` });
    log.length = 0;
    const result = fts.search("数据库连接", { limit: 20 });
    expect(result.route).toBe("trigram");
    expect(result.hits).toHaveLength(20);
    for (const hit of result.hits) expect(hit.snippet).toContain("«数据库连接»");
    const windows = (sql: string) => sql.includes("AS w, length(b) AS n");
    expect(log.filter(windows).length).toBe(1);
    // A term without cased letters is found without copying each row through lower().
    expect(log.filter((sql) => windows(sql) && sql.includes("lower(")).length).toBe(0);
  });

  it("a cased term's window folds both sides; an uncased one finds the same place unfolded", () => {
    const { fts, store: s, log } = open();
    const text = `${"Xy ".repeat(80)}CONNECTION 4711 数据 ${"Zw ".repeat(80)}`;
    s.add({ content: text });
    // 40 characters before the match, 120 in all (LIKE_SNIPPET_BEFORE_CHARS, LIKE_SNIPPET_CHARS).
    const around = (at: number, term: string) =>
      `…${text.slice(at - 40, at)}«${text.slice(at, at + term.length)}»${text.slice(at + term.length, at + 120 - 40)}…`;
    log.length = 0;
    const cased = fts.search("nnection", { substring: true });
    expect(cased.hits[0]?.snippet).toBe(around(text.indexOf("NNECTION"), "nnection"));
    expect(log.some((sql) => sql.includes("AS w, length(b) AS n") && sql.includes("lower("))).toBe(true);
    const digits = fts.search("4711", { substring: true });
    expect(digits.hits[0]?.snippet).toBe(around(text.indexOf("4711"), "4711"));
  });
});
