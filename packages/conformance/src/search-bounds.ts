/**
 * Conformance: search stays exact and bounded in time on pathological content and queries —
 * megabyte runs of one character or one word, long substring queries, long phrases — and finds
 * text after a NUL character on every route. The assertions are on hits and routes; the time
 * bound only catches a hang (these searches took seconds to hours before they were bounded;
 * packages/bench measures the speed). It bounds the work a search does, this process's CPU time,
 * not the wall clock a loaded machine stretches; a server target's work is in its server, so
 * there a wall-clock backstop is what catches a hang.
 */
import process from "node:process";
import { LIMITS, type SearchOptions, type SearchResult } from "@sessiondb/core";
import {
  assert,
  type ConformanceStore,
  type ConformanceTarget,
  type Fixture,
  fixtureTest,
  scalar,
  throwsCode,
} from "./harness.js";

const { MAX_SEARCH_WORDS } = LIMITS;

/** CPU time far above what any of these searches takes now, far below what they took unbounded. */
const HANG_BOUND_CPU_MS = 3000;
/** Wall time no search here comes near on any machine, however loaded. */
const HANG_BOUND_WALL_MS = 60_000;

/** Run a search and fail if it took longer than the bounds. */
async function timedSearch(
  store: ConformanceStore,
  query: string,
  options?: SearchOptions,
): Promise<SearchResult> {
  const started = Date.now();
  const cpu = process.cpuUsage();
  const result = await store.search(query, options);
  const spent = process.cpuUsage(cpu);
  const cpuMs = (spent.user + spent.system) / 1000;
  const took = Date.now() - started;
  const what = `search(${query.slice(0, 24)}…)`;
  assert.ok(cpuMs < HANG_BOUND_CPU_MS, `${what} took ${cpuMs.toFixed(0)} ms of CPU (${took} ms)`);
  assert.ok(took < HANG_BOUND_WALL_MS, `${what} took ${took} ms`);
  return result;
}

/**
 * The route a substring search must take: trigram where this SQLite has the tokenizer and it
 * indexes text after a NUL character; SQLite 3.40's stops at the first NUL, so there search
 * answers by LIKE. Asked here with a temporary table of its own, apart from the store's probe.
 */
export async function substringRoute(f: Fixture, store: ConformanceStore): Promise<"trigram" | "like"> {
  if (!(await store.ftsStatus()).trigram) return "like";
  const conn = f.raw();
  conn.exec("CREATE VIRTUAL TABLE temp.nul_check USING fts5(c, tokenize='trigram')");
  conn.exec("INSERT INTO temp.nul_check(c) VALUES ('ab' || char(0) || 'cde')");
  const readsPastNul = Number(scalar(conn, `SELECT count(*) FROM nul_check('"cde"')`)) === 1;
  conn.close();
  if (!readsPastNul)
    console.log(
      `[conformance] ${f.target.name}: the trigram tokenizer stops at a NUL; substring search uses LIKE`,
    );
  return readsPastNul ? "trigram" : "like";
}

const ids = (result: SearchResult) => result.hits.map((h) => h.messageId).sort((a, b) => a - b);

/** A store with one pathological row among ordinary ones; returns the row's id. */
async function withRun(store: ConformanceStore, content: string): Promise<number> {
  await store.createSession({ id: "s", source: "cli" });
  await store.appendMessages("s", [
    { role: "user", content: "an ordinary question about the build" },
    { role: "assistant", content: "an ordinary answer, zero surprises" },
  ]);
  const id = await store.appendMessage("s", { role: "user", content });
  await store.appendMessage("s", { role: "tool", toolName: "bash", content: "ordinary tool output" });
  return id;
}

export function searchBoundsSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);

  describe("search bounds", () => {
    test("substring search over a 20 000-character run of one character", async (f) => {
      const store = await f.open();
      const run = await withRun(store, "z".repeat(20_000));
      const route = await substringRoute(f, store);
      const long = await timedSearch(store, "z".repeat(300), { substring: true });
      assert.equal(long.route, route);
      assert.deepEqual(ids(long), [run]);
      // A window of the row (the term is longer than the window, so nothing in it is marked).
      assert.match(long.hits[0]?.snippet ?? "", /^z+…$/);
      assert.deepEqual(ids(await timedSearch(store, `${"z".repeat(300)}y`, { substring: true })), []);
      assert.deepEqual(ids(await timedSearch(store, `y${"z".repeat(300)}`, { substring: true })), []);
      const short = await timedSearch(store, "zz", { substring: true });
      assert.equal(short.route, "like");
      assert.deepEqual(ids(short), [run]);
      // A read-only store asks its SQLite the same way (the probe's table is TEMP).
      const reader = await f.open({ readOnly: true });
      const read = await timedSearch(reader, "z".repeat(300), { substring: true });
      assert.equal(read.route, route);
      assert.deepEqual(ids(read), [run]);
    });

    test("substring search over a 1 MB run of one character, with long and short queries", async (f) => {
      const store = await f.open();
      const run = await withRun(store, "z".repeat(1_000_000));
      const route = await substringRoute(f, store);
      for (const length of [10, 300, 1000]) {
        const found = await timedSearch(store, "Z".repeat(length), { substring: true });
        assert.equal(found.route, route);
        assert.deepEqual(ids(found), [run], `a run of ${length}`);
        if (length === 10) assert.match(found.hits[0]?.snippet ?? "", /^«z{10}»«z{10}»/);
        const missed = await timedSearch(store, `${"z".repeat(length - 1)}y`, { substring: true });
        assert.deepEqual(ids(missed), [], `a run of ${length - 1} and a y`);
      }
      const like = await timedSearch(store, "z".repeat(1000), { roles: ["user", "tool"] });
      assert.equal(like.route, "like");
      assert.deepEqual(ids(like), [run]);
      assert.deepEqual(ids(await timedSearch(store, `${"z".repeat(999)}y`, { roles: ["user", "tool"] })), []);
      assert.deepEqual(ids(await timedSearch(store, "zz", { substring: true })), [run]);
    });

    test("word search over a 1 MB run of one word, with long phrases and many terms", async ({ open }) => {
      const store = await open();
      const run = await withRun(store, "word ".repeat(200_000));
      const one = await timedSearch(store, "word");
      assert.equal(one.route, "fts");
      assert.deepEqual(ids(one), [run]);
      assert.match(one.hits[0]?.snippet ?? "", /«word»/);
      const phrase = (n: number) => `"${Array.from({ length: n }, () => "word").join(" ")}"`;
      assert.deepEqual(ids(await timedSearch(store, phrase(10))), [run]);
      assert.deepEqual(ids(await timedSearch(store, phrase(MAX_SEARCH_WORDS))), [run]);
      assert.deepEqual(ids(await timedSearch(store, `${phrase(MAX_SEARCH_WORDS - 1)} missing`)), []);
      // Repeated terms collapse; distinct ones are bounded by the word budget.
      assert.deepEqual(ids(await timedSearch(store, "word ".repeat(400))), [run]);
      assert.equal((await timedSearch(store, "word OR ordinary OR answer OR question")).hits.length, 4);
      const refused = await throwsCode(() => store.search(phrase(MAX_SEARCH_WORDS + 1)), "INVALID_INPUT");
      assert.match(refused.message, /substring/);
      // The same long text as a substring is not a phrase and is not limited.
      const pasted = await timedSearch(store, phrase(MAX_SEARCH_WORDS + 1).slice(1, -1), { substring: true });
      assert.deepEqual(ids(pasted), [run]);
      assert.equal(await store.messageCount(), 4, "a refused search stored nothing");
    });

    test("text after a NUL character is found on every route", async (f) => {
      const store = await f.open();
      await store.createSession({ id: "s", source: "cli" });
      const user = await store.appendMessage("s", { role: "user", content: "nulA\u0000nulB tail" });
      const tool = await store.appendMessage("s", {
        role: "tool",
        toolName: "bash",
        content: "toolA\u0000toolB tail",
      });
      await store.appendMessage("s", { role: "assistant", content: "nothing here" });
      const route = await substringRoute(f, store);
      const cases: Array<[string, SearchOptions, string, number[]]> = [
        ["nulB", {}, "fts", [user]],
        ["nulB", { substring: true }, route, [user]],
        ["ulB", { substring: true }, route, [user]],
        // A substring search reads no tool output, on the LIKE route as on the trigram index.
        ["lB", { substring: true }, "like", [user]],
        ["nulB", { roles: ["user", "tool"] }, "like", [user]],
        ["toolB", { roles: ["tool"] }, "like", [tool]],
        ["nulB tail", { roles: ["user"] }, "fts", [user]],
      ];
      const check = async (phase: string, expectRoute: (route: string) => string) => {
        for (const [query, options, route, expected] of cases) {
          const result = await timedSearch(store, query, options);
          const label = `${phase}: ${query} ${JSON.stringify(options)}`;
          assert.equal(result.route, expectRoute(route), label);
          assert.deepEqual(ids(result), expected, label);
          for (const hit of result.hits) {
            // The snippet spans the NUL and marks the match after it.
            const marked = `«${query.split(" ")[0]}»`; // FTS5 marks a phrase word by word
            assert.ok(hit.snippet.includes(marked), `${label}: ${JSON.stringify(hit.snippet)}`);
            assert.ok(/^(nul|tool)A/.test(hit.snippet), `${label}: ${JSON.stringify(hit.snippet)}`);
          }
        }
      };
      await check("ready", (route) => route);
      await store.startFtsBackfill();
      // The pending window holds every row: the index answers nothing, the top-up everything.
      await check("backfilling", (route) => (route === "like" ? "like" : "fts+like"));
    });

    test("a snippet of text holding a NUL is the text as stored, on every route and on a walk's later pages", async (f) => {
      const store = await f.open();
      await store.createSession({ id: "s", source: "cli" });
      // FTS5's own snippet() drops text that follows a NUL: "alpha «charlie» delta echo".
      const text = "alpha \u0000 bravo charlie delta echo";
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push(await store.appendMessage("s", { role: "user", content: text }));
      // A substring search takes the trigram index or LIKE, as this SQLite allows (see
      // substringRoute); either way each of its pages takes the same one.
      for (const [query, options, routes] of [
        ["alpha", {}, ["fts"]],
        ["charlie", {}, ["fts"]],
        ["echo", {}, ["fts"]],
        ["charlie", { substring: true }, ["trigram", "like"]],
        ["charlie", { roles: ["user", "tool"] }, ["like"]],
      ] as Array<[string, SearchOptions, string[]]>) {
        const label = `${query} ${JSON.stringify(options)}`;
        // Pages of one hit, so the rank walk's later pages (read by id) are checked too.
        let page = await timedSearch(store, query, { ...options, limit: 1 });
        const route = page.route;
        assert.ok(routes.includes(route), `${label}: ${route}`);
        const seen: number[] = [];
        for (;;) {
          assert.equal(page.route, route, label);
          for (const hit of page.hits) {
            seen.push(hit.messageId);
            assert.equal(hit.snippet.replace(/[«»]/g, ""), text, `${label}: ${JSON.stringify(hit.snippet)}`);
            assert.ok(hit.snippet.includes(`«${query}»`), `${label}: ${JSON.stringify(hit.snippet)}`);
          }
          if (!page.nextCursor) break;
          page = await timedSearch(store, query, { ...options, limit: 1, cursor: page.nextCursor });
        }
        assert.deepEqual([...seen].sort(), [...ids].sort(), label);
      }
    });

    test("the trigram and LIKE routes agree on substring queries", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      for (const content of [
        "Loading my-app.CONFIG.ts",
        "config loader",
        "CONFIGURATION",
        "conf ig",
        "Ünïcödé ÜNÏCÖDÉ",
        "ünïcödé",
        "abcd-xbcde",
        "東京都の天気",
        "100% done, my_func()",
      ])
        await store.appendMessage("s", { role: "user", content });
      for (const query of [
        "config",
        "Config.ts",
        "nfig",
        "ünï",
        "ÜNÏ",
        "京都の",
        "100%",
        "my_func",
        "on f",
        "abcde",
      ]) {
        const viaIndex = await timedSearch(store, query, { substring: true, limit: 100 });
        const viaLike = await timedSearch(store, query, { roles: ["user", "tool"], limit: 100 });
        assert.equal(viaLike.route, "like");
        assert.deepEqual(ids(viaIndex), ids(viaLike), query);
      }
      // "abcd-xbcde" holds every trigram of "abcde" but not the term: the exact test drops it.
      assert.deepEqual(ids(await store.search("abcde", { substring: true })), []);
      assert.equal((await store.search("ünï", { substring: true })).hits.length, 1);
    });
  });
}
