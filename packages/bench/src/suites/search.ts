/**
 * Search latency p50/p99 for a word, a phrase, a substring and a CJK query through
 * `store.search`, against the raw FTS5 query the route stands on (MATCH on the same index,
 * bm25 order, snippet, joined to messages, LIMIT 20) through the raw binding, same file.
 */
import { Bench } from "tinybench";
import type { Engine } from "../engine.js";
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
} as const;

const rawSql = (table: string) =>
  `SELECT m.id, m.session_id, m.role, m.timestamp, m.tool_name, snippet(${table}, 0, '«', '»', '…', 16) AS snippet
   FROM ${table} JOIN messages m ON m.id = ${table}.rowid WHERE ${table} MATCH ? ORDER BY rank LIMIT 20`;

export async function searchLatency(engine: Engine, ctx: SuiteContext): Promise<void> {
  const store = engine.openStore(ctx.db);
  const raw = engine.openRaw(ctx.db);
  try {
    for (const [kind, q] of Object.entries(QUERIES)) {
      const statement = raw.prepare(rawSql(q.table));
      const first = store.search(q.query, q.options);
      const rawHits = statement.all(q.match).length;
      ctx.note(`search.${kind}.route`, `${first.route}, ${first.hits.length} hits (raw ${rawHits})`);
      const bench = new Bench({
        time: ctx.plan.benchTimeMs,
        iterations: ctx.plan.benchIterations,
        warmup: ctx.plan.benchTimeMs > 0,
        warmupIterations: 5,
      });
      bench.add("store", () => void store.search(q.query, q.options));
      bench.add("raw", () => void statement.all(q.match));
      await bench.run();
      const [s, r] = bench.tasks.map((task) => {
        if (task.result.state !== "completed")
          throw new Error(`tinybench task ${task.name}: ${task.result.state}`);
        return task.result.latency;
      });
      if (!s || !r) throw new Error("tinybench returned no tasks");
      ctx.metric(`search.${kind}.store.p50`, s.p50);
      ctx.metric(`search.${kind}.store.p99`, s.p99);
      ctx.metric(`search.${kind}.raw.p50`, r.p50);
      ctx.metric(`search.${kind}.ratio`, s.p50 / r.p50);
    }
  } finally {
    raw.close();
    store.close();
  }
}
