/**
 * Search latency p50/p99 for a word, a phrase, a substring and a CJK query through
 * `store.search`, against the raw FTS5 query the route stands on (MATCH on the same index,
 * bm25 order, snippet, joined to messages, LIMIT 20) through the raw binding, same file.
 * Then the worst case: a substring search that hits a 1 MB run of one character (a pasted log
 * line), against the ordinary substring search through the store, measured side by side.
 */

import type { Store } from "@sessiondb/core";
import { Bench } from "tinybench";
import type { Engine, RawDb } from "../engine.js";
import { median, now } from "../stats.js";
import type { SuiteContext } from "./context.js";

const QUERIES = {
  word: { query: "migration", options: {}, table: "messages_fts", match: "migration" },
  phrase: {
    query: '"connection refused"',
    options: {},
    table: "messages_fts",
    match: '"connection refused"',
  },
  substring: {
    query: "nnection",
    options: { substring: true },
    table: "messages_fts_trigram",
    match: '"nnection"',
  },
  cjk: { query: "数据库连接", options: {}, table: "messages_fts_trigram", match: '"数据库连接"' },
  // A filter the index cannot answer: the rows are read in rank order until the page is full.
  filtered: {
    query: "migration",
    options: { roles: ["user"] },
    table: "messages_fts",
    match: "migration",
    where: "AND m.role = 'user'",
  },
} as const satisfies Record<
  string,
  { query: string; options: object; table: string; match: string; where?: string }
>;

/** Paging through every hit of a common word: cursor pages of the largest size against one raw
 * query returning all of them (rank order, snippets). */
export const WALK = { query: "migration", limit: 1000 } as const;

/** The worst case: one row of a million `z`, found by a substring search for ten of them
 * (unbounded, this search did not finish in 100 s: snippet() is quadratic in a row's matches). */
const RUN_CHARS = 1_000_000;
const WORST = { query: "z".repeat(10), options: { substring: true } } as const;

const rawSql = (table: string, where = "", limit = "LIMIT 20") =>
  `SELECT m.id, m.session_id, m.role, m.timestamp, m.tool_name, snippet(${table}, 0, '«', '»', '…', 16) AS snippet
   FROM ${table} JOIN messages m ON m.id = ${table}.rowid WHERE ${table} MATCH ? ${where} ORDER BY rank ${limit}`;

function newBench(ctx: SuiteContext): Bench {
  return new Bench({
    time: ctx.plan.benchTimeMs,
    iterations: ctx.plan.benchIterations,
    warmup: ctx.plan.benchTimeMs > 0,
    warmupIterations: 5,
  });
}

/** Latency statistics of `fn` alone, in a Bench of its own. */
async function latencyOf(ctx: SuiteContext, fn: () => void) {
  const bench = newBench(ctx);
  bench.add("task", fn);
  await bench.run();
  const task = bench.tasks[0];
  if (task?.result.state !== "completed") throw new Error(`tinybench task: ${task?.result.state}`);
  return task.result.latency;
}

/** Run `bench` and return each task's latency statistics, in the order they were added. */
async function latencies(bench: Bench) {
  await bench.run();
  const [a, b] = bench.tasks.map((task) => {
    if (task.result.state !== "completed")
      throw new Error(`tinybench task ${task.name}: ${task.result.state}`);
    return task.result.latency;
  });
  if (!a || !b) throw new Error("tinybench returned no tasks");
  return [a, b] as const;
}

/** The 1 MB run, in a session of its own that is deleted afterwards (later suites see the
 * corpus as it was). */
async function worstCase(store: Store, ctx: SuiteContext): Promise<void> {
  const session = "bench-search-worst-case";
  store.createSession({ id: session, source: "bench" });
  const id = store.appendMessage(session, { role: "user", content: "z".repeat(RUN_CHARS) });
  try {
    const first = store.search(WORST.query, WORST.options);
    if (!first.hits.some((h) => h.messageId === id))
      throw new Error(`the worst-case search missed the run (route ${first.route})`);
    ctx.note("search.worst.route", `${first.route}, ${first.hits.length} hits`);
    const ordinary = QUERIES.substring;
    const bench = newBench(ctx);
    bench.add("worst", () => void store.search(WORST.query, WORST.options));
    bench.add("ordinary", () => void store.search(ordinary.query, ordinary.options));
    const [w, o] = await latencies(bench);
    ctx.metric("search.worst.store.p50", w.p50);
    ctx.metric("search.worst.store.p99", w.p99);
    ctx.metric("search.worst.ratio", w.p50 / o.p50);
  } finally {
    store.deleteSession(session);
  }
}

/** Every hit of `query` through the store's cursor pages of WALK.limit (at most `pages` of them). */
export function walkHits(store: Store, query: string, pages?: number): { hits: number; pages: number } {
  let cursor: string | undefined;
  const walked = { hits: 0, pages: 0 };
  do {
    const page = store.search(query, { limit: WALK.limit, ...(cursor ? { cursor } : {}) });
    walked.hits += page.hits.length;
    walked.pages++;
    cursor = page.nextCursor;
  } while (cursor && (pages === undefined || walked.pages < pages));
  return walked;
}

/** Every hit of a common word: the store's cursor walk against one raw query, alternating
 * (`plan.rounds` rounds; the median ratio of the rounds is kept). With `plan.walkPages` (large
 * stores) the walk stops after that many pages and the raw query returns as many hits. */
function walkAll(store: Store, raw: RawDb, ctx: SuiteContext): void {
  const pages = ctx.plan.walkPages;
  const statement = raw.prepare(
    rawSql("messages_fts", "", pages === undefined ? "" : `LIMIT ${pages * WALK.limit}`),
  );
  const times = { store: [] as number[], raw: [] as number[] };
  let counts = { store: 0, raw: 0, pages: 0 };
  const sides = {
    store: () => {
      const walked = walkHits(store, WALK.query, pages);
      counts = { ...counts, store: walked.hits, pages: walked.pages };
    },
    raw: () => {
      counts.raw = statement.all(WALK.query).length;
    },
  };
  for (let round = 0; round < ctx.plan.rounds; round++) {
    for (const side of round % 2 === 0 ? (["store", "raw"] as const) : (["raw", "store"] as const)) {
      const started = now();
      sides[side]();
      times[side].push(now() - started);
    }
  }
  if (counts.store !== counts.raw) throw new Error(`the walk found ${counts.store} hits, raw ${counts.raw}`);
  const all = pages === undefined ? "" : ` (the first ${pages} pages only)`;
  ctx.note(
    "search.walk.hits",
    `${counts.raw} hits of "${WALK.query}", ${counts.pages} pages of ${WALK.limit}${all}`,
  );
  ctx.metric("search.walk.store", median(times.store));
  ctx.metric("search.walk.raw", median(times.raw));
  ctx.metric("search.walk.ratio", median(times.store.map((t, i) => t / (times.raw[i] ?? Number.NaN))));
}

/**
 * Each query's two sides are measured one after the other, the raw side on a connection opened
 * for its measurement and closed after it. Deno 2.9 (node:sqlite) slows a connection's
 * bm25-ranked queries to half speed once a second connection in the process has been taking
 * turns with it on a large store (~300 → ~670 ms at 1M, reproduced with two plain node:sqlite
 * connections and no sessiondb code; closing the second restores the first): with both sides
 * open side by side all along, Deno's 1M search ratios measured that, not the store.
 */
export async function searchLatency(engine: Engine, ctx: SuiteContext): Promise<void> {
  const store = engine.openStore(ctx.db);
  try {
    for (const [kind, q] of Object.entries(QUERIES)) {
      const first = store.search(q.query, q.options);
      const s = await latencyOf(ctx, () => void store.search(q.query, q.options));
      const raw = engine.openRaw(ctx.db);
      let rawHits: number;
      let r: Awaited<ReturnType<typeof latencyOf>>;
      try {
        const statement = raw.prepare(rawSql(q.table, "where" in q ? q.where : ""));
        rawHits = statement.all(q.match).length;
        r = await latencyOf(ctx, () => void statement.all(q.match));
      } finally {
        raw.close();
      }
      ctx.note(`search.${kind}.route`, `${first.route}, ${first.hits.length} hits (raw ${rawHits})`);
      ctx.metric(`search.${kind}.store.p50`, s.p50);
      ctx.metric(`search.${kind}.store.p99`, s.p99);
      ctx.metric(`search.${kind}.raw.p50`, r.p50);
      ctx.metric(`search.${kind}.ratio`, s.p50 / r.p50);
    }
    const raw = engine.openRaw(ctx.db);
    try {
      walkAll(store, raw, ctx);
    } finally {
      raw.close();
    }
    await worstCase(store, ctx);
  } finally {
    store.close();
  }
}
