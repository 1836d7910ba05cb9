/**
 * Runs every suite for one target at one size, inside the target's own runtime, and writes one
 * JSON file. Started by run.ts; usable by hand:
 *   <runtime> dist/runner.js --target T --corpus FILE --work DIR --size 10k --mode full|smoke
 *     --exec '["node"]' --out FILE [--only a,b] [--skip "fts throughput,backup"]
 * With --probe it only says whether the target can run here.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { loadEngine, SIDE_FILES, SkipTarget, TARGET_LABELS, type TargetId } from "./engine.js";
import type { SizeResult } from "./metrics.js";
import { PLANS } from "./plans.js";
import { now } from "./stats.js";
import { appendSuite } from "./suites/append.js";
import { backupSuite } from "./suites/backup.js";
import { bindingsSuite } from "./suites/bindings.js";
import { coldOpenInProcess, coldOpenProcess } from "./suites/cold.js";
import type { SuiteContext } from "./suites/context.js";
import { ftsThroughput, writerUnderLoad } from "./suites/fts.js";
import { importFromSuite, transcriptMemory } from "./suites/import-from.js";
import { peersSuite } from "./suites/peers.js";
import { pruneSuite } from "./suites/prune.js";
import { resumeSuite } from "./suites/resume.js";
import { searchLatency } from "./suites/search.js";

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : undefined;
  if (value === undefined) throw new Error(`missing --${name}`);
  return value;
}

const target = arg("target") as TargetId;
if (process.argv.includes("--probe")) {
  try {
    const engine = await loadEngine(target);
    process.stdout.write(
      `${JSON.stringify({ ok: true, runtime: engine.runtime, sqliteVersion: engine.sqliteVersion })}\n`,
    );
  } catch (error) {
    if (!(error instanceof SkipTarget)) throw error;
    process.stdout.write(`${JSON.stringify({ ok: false, reason: error.message })}\n`);
  }
  process.exit(0);
}

const t0 = now();
const engine = await loadEngine(target);
const size = arg("size");
const mode = arg("mode") as keyof typeof PLANS;
const work = arg("work");
mkdirSync(work, { recursive: true });
const db = join(work, `${target}-${size}.db`);
for (const suffix of SIDE_FILES) rmSync(db + suffix, { force: true });
copyFileSync(arg("corpus"), db);

// Open once through the store: a copy made by another runtime's SQLite is brought current
// here, so the cold-open figures measure the fast path of a current store.
const warm = engine.openStore(db);
const messages = warm.messageCount();
warm.close();
const raw = engine.openRaw(db);
const sessionId = String(
  raw.prepare("SELECT id FROM sessions ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM sessions)").get()
    ?.id,
);
const bytes = Number(
  raw
    .prepare(
      "SELECT sum(coalesce(length(CAST(content AS BLOB)), 0) + coalesce(length(CAST(tool_name AS BLOB)), 0) + coalesce(length(CAST(tool_calls AS BLOB)), 0)) AS b FROM messages",
    )
    .get()?.b,
);
raw.close();

const result: SizeResult = {
  messages,
  contentMB: bytes / 1e6,
  metrics: {},
  notes: {},
  errors: {},
  seconds: 0,
};
const ctx: SuiteContext = {
  db,
  corpus: arg("corpus"),
  messages,
  sessionId,
  bytes,
  exec: JSON.parse(arg("exec")) as string[],
  work,
  plan: PLANS[mode](messages),
  metric: (name, value) => {
    result.metrics[name] = value;
  },
  note: (name, value) => {
    result.notes[name] = value;
  },
};

const suites: Array<[string, () => unknown]> = [
  ["cold open in-process", () => coldOpenInProcess(engine, ctx)],
  ["cold open whole process", () => coldOpenProcess(engine, ctx)],
  ["resume", () => resumeSuite(engine, ctx)],
  ["search", () => searchLatency(engine, ctx)],
  ["append", () => appendSuite(engine, ctx)],
  ["peers", () => peersSuite(engine, ctx)],
  ["bindings", () => bindingsSuite(engine, ctx)],
  ["import from a Claude Code folder", () => importFromSuite(engine, ctx)],
  ["import of one long transcript", () => transcriptMemory(engine, ctx)],
  ["fts throughput", () => ftsThroughput(engine, ctx)],
  ["writer under load", () => writerUnderLoad(engine, ctx)],
  ["backup", () => backupSuite(engine, ctx)],
  ["prune and vacuum then import", () => pruneSuite(engine, ctx)],
];
// --only: suites to run (substrings of their names); --skip: suites to leave out (exact names).
const only = process.argv.includes("--only") ? arg("only").split(",") : undefined;
const skip = process.argv.includes("--skip") ? arg("skip").split(",") : [];
for (const [name, run] of suites) {
  if (only && !only.some((o) => name.includes(o))) continue;
  if (skip.includes(name)) continue;
  const started = now();
  try {
    await run();
    process.stderr.write(`  ${target} ${size}: ${name} done in ${((now() - started) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    result.errors[name] = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`  ${target} ${size}: ${name} FAILED: ${result.errors[name]?.split("\n")[0]}\n`);
  }
}
for (const suffix of SIDE_FILES) rmSync(db + suffix, { force: true });
result.seconds = (now() - t0) / 1000;
writeFileSync(
  arg("out"),
  `${JSON.stringify({ target, label: TARGET_LABELS[target], runtime: engine.runtime, sqliteVersion: engine.sqliteVersion, size, result }, null, 2)}\n`,
);
