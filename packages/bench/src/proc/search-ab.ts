/**
 * A search's CPU time, A/B in one process: another build of the core (`base`, e.g. the parent
 * commit's `packages/core/dist`) against this one (`cur`), and the hand-written query of the
 * same word on the same index (`raw`: the peers suite's MATCH + ORDER BY rank + snippet +
 * LIMIT 20), each on its own copy of a corpus store, through the target's driver. The sides take
 * turns of 10 calls in a rotating order; each turn's CPU time (`process.cpuUsage`) per call, the
 * slowest tenth of the turns left out. Both builds must answer every query the same. Not part of
 * `npm run bench`; HISTORY.md's "The fixed cost of a search, after the snapshot cache" comes
 * from it.
 * Usage: <runtime> dist/proc/search-ab.js <target> <corpus.db> <dir> <base core dist> [turns]
 */
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import type { SearchOptions, SqliteDriver, Store, StoreOptions } from "@sessiondb/core";
import { nodeFsHost } from "@sessiondb/core/host";
import { currentRuntime, type TargetId } from "../engine.js";
import { trimmedMean } from "../stats.js";

type Core = { createStore(driver: SqliteDriver, path: string, options?: StoreOptions): Store };

const ADAPTERS: Partial<Record<TargetId, readonly [string, string | undefined]>> = {
  "node-better-sqlite3": ["@sessiondb/node", "better-sqlite3"],
  "node-sqlite": ["@sessiondb/node", "node:sqlite"],
  "bun-sqlite": ["@sessiondb/bun", undefined],
  "deno-node-sqlite": ["@sessiondb/deno", undefined],
};

const [target, corpus, dir, baseDist, turnsArg = "200"] = process.argv.slice(2) as [
  TargetId,
  string,
  string,
  string,
  string?,
];
const adapter = ADAPTERS[target];
if (!adapter || !corpus || !dir || !baseDist) {
  throw new Error("usage: search-ab.js <target> <corpus.db> <dir> <base core dist> [turns]");
}
// A variable specifier keeps the bundler from resolving the adapters at build time.
const load = (specifier: string) => import(specifier) as Promise<Record<string, unknown>>;
const { resolveDriver } = (await load(adapter[0])) as { resolveDriver(name?: string): SqliteDriver };
const driver = resolveDriver(adapter[1]);
const base = (await load(pathToFileURL(join(baseDist, "index.js")).href)) as Core;
const cur = (await load("@sessiondb/core")) as Core;

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const copy = (name: string) => {
  const path = join(dir, `${name}.db`);
  copyFileSync(corpus, path);
  return path;
};
const before = base.createStore(driver, copy("base"), { host: nodeFsHost });
const after = cur.createStore(driver, copy("cur"), { host: nodeFsHost });
const raw = driver.open(copy("raw"), { readOnly: false });
const rawPage = raw.prepare(
  `SELECT m.id, m.session_id, m.role, m.timestamp, m.tool_name, snippet(messages_fts, 0, '«', '»', '…', 16) AS snippet
   FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ? ORDER BY rank LIMIT 20`,
);

/** A word in no message (the fixed cost: nothing to rank, read or snippet), the peers suite's
 * first page, a substring (the trigram route; no raw side). */
const QUERIES: ReadonlyArray<readonly [string, string, SearchOptions]> = [
  ["missing word", "zqxjkvbw", { limit: 20 }],
  ["migration", "migration", { limit: 20 }],
  ["substring", "igratio", { limit: 20, substring: true }],
];

const cpu = () => {
  const used = process.cpuUsage();
  return used.user + used.system;
};
const turns = Number(turnsArg);
const out: Record<string, unknown> = {
  target,
  runtime: `${currentRuntime().name} ${currentRuntime().version}`,
  turns,
};
for (const [name, query, options] of QUERIES) {
  const sides: Record<string, () => unknown> = {
    base: () => before.search(query, options),
    cur: () => after.search(query, options),
  };
  if (!options.substring) sides.raw = () => rawPage.all(query);
  const answer = after.search(query, options);
  if (JSON.stringify(before.search(query, options)) !== JSON.stringify(answer)) {
    throw new Error(`${name}: the two builds answer differently`);
  }
  const keys = Object.keys(sides);
  const samples = new Map(keys.map((key) => [key, [] as number[]]));
  for (let turn = 0; turn < turns; turn++) {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[(turn + i) % keys.length] as string;
      const side = sides[key] as () => unknown;
      const started = cpu();
      for (let call = 0; call < 10; call++) side();
      samples.get(key)?.push((cpu() - started) / 10);
    }
  }
  out[name] = {
    route: answer.route,
    hits: answer.hits.length,
    ...Object.fromEntries(keys.map((key) => [key, Math.round(trimmedMean(samples.get(key) ?? [], 0.1))])),
  };
}
before.close();
after.close();
raw.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(out)}\n`);
