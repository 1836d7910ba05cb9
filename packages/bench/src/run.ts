/**
 * `npm run bench`: builds the corpus once per size, runs every suite on every target in its own
 * runtime, writes JSON per target plus one Markdown table to results/, prints the table, and
 * compares the ratios with baseline.json.
 *
 *   node dist/run.js [--sizes 10k,100k,1m] [--targets a,b] [--seed N] [--smoke] [--out DIR]
 *   env: BENCH_SIZES, BENCH_TARGETS
 * --smoke: 1k messages, every suite once, no timing comparisons (npm test uses it).
 * On a large store (1M) the whole-store suites run on the corpus builder's target only
 * (plans.ts, WHOLE_STORE_SUITES).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { type Baseline, compare } from "./baseline.js";
import { SERVER_TARGETS, SIDE_FILES, TARGET_LABELS, TARGETS, type TargetId } from "./engine.js";
import type { SizeResult, TargetResult } from "./metrics.js";
import { LARGE_STORE, WHOLE_STORE_SUITES } from "./plans.js";
import { markdown, type RunMeta } from "./report.js";
import { lastJson, runTimed, script } from "./spawn.js";
import { now } from "./stats.js";
import { execFor } from "./targets.js";

const flag = (name: string) => process.argv.includes(`--${name}`);
const option = (name: string, fallback?: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};

/** "10k" → 10000, "1m" → 1000000. */
export function parseSize(label: string): number {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(label.trim());
  if (!match) throw new Error(`bad size ${label}: use e.g. 1k, 10k, 100k, 1m`);
  return Math.round(Number(match[1]) * (match[2]?.toLowerCase() === "m" ? 1e6 : match[2] ? 1e3 : 1));
}

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const smoke = flag("smoke");
const mode = smoke ? "smoke" : "full";
const sizes = (option("sizes", process.env.BENCH_SIZES) ?? (smoke ? "1k" : "10k,100k,1m"))
  .split(",")
  .map((s) => s.trim());
const wanted = (option("targets", process.env.BENCH_TARGETS) ?? TARGETS.join(",")).split(",") as TargetId[];
const seed = Number(option("seed", "20260101"));
const outDir = option("out") ?? join(pkg, "results", smoke ? "smoke" : "");
const work = join(outDir, ".work");
mkdirSync(work, { recursive: true });
const t0 = now();

/** The script that runs a target's suites: the file targets' runner, or the server one. */
const runnerOf = (target: TargetId) => (SERVER_TARGETS.includes(target) ? "server-runner.js" : "runner.js");

// 1. Which targets can run here (each asked in its own runtime).
const results: TargetResult[] = [];
const runnable: Array<{ target: TargetId; exec: string[] }> = [];
for (const target of wanted) {
  if (!TARGETS.includes(target)) throw new Error(`unknown target ${target}; known: ${TARGETS.join(", ")}`);
  const result: TargetResult = { target, label: TARGET_LABELS[target], sizes: {} };
  results.push(result);
  const found = execFor(target);
  if ("reason" in found) {
    result.skipped = found.reason;
  } else {
    try {
      const probe = lastJson<{ ok: boolean; reason?: string; runtime?: string; sqliteVersion?: string }>(
        runTimed(found.exec, script(runnerOf(target)), ["--probe", "--target", target]).stdout,
      );
      if (probe.ok) {
        result.runtime = probe.runtime;
        result.sqliteVersion = probe.sqliteVersion;
        runnable.push({ target, exec: found.exec });
      } else result.skipped = probe.reason;
    } catch (error) {
      result.skipped = `probe failed: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}`;
    }
  }
  console.error(
    result.skipped
      ? `skip ${target}: ${result.skipped}`
      : `ready ${target}: ${result.runtime}, SQLite ${result.sqliteVersion}`,
  );
}
/**
 * The corpus store of one size, built once and kept in results/corpus-cache/ between runs (a
 * 1M-message corpus takes minutes to build). The key is the seed, the size and a hash of the
 * built generator (dist/prepare.js and the chunks it imports), so a change to the corpus code
 * builds afresh; a change to the store is not part of it, because every target opens its copy
 * through its own adapter first, which brings the file current. `--fresh-corpus` rebuilds.
 * Written under a temporary name and renamed, so a run that dies mid-build leaves nothing.
 */
function corpusFor(
  size: string,
  builder: { target: TargetId; exec: string[] },
): {
  corpus: string;
  built: { sessions: number; messages: number; ms: number; contentChars: number };
  reused: boolean;
} {
  const cache = join(pkg, "results", "corpus-cache");
  mkdirSync(cache, { recursive: true });
  const stem = `corpus-${seed}-${size}-`;
  const corpus = join(cache, `${stem}${generatorHash()}.db`);
  const summary = `${corpus}.json`;
  if (!flag("fresh-corpus") && existsSync(summary) && existsSync(corpus))
    return { corpus, built: JSON.parse(readFileSync(summary, "utf8")), reused: true };
  // Older builds of this seed and size (another generator) would only take disk space.
  for (const file of readdirSync(cache))
    if (file.startsWith(stem)) rmSync(join(cache, file), { force: true });
  const partial = join(cache, `partial-${process.pid}-${stem}.db`);
  const built = lastJson<{ sessions: number; messages: number; ms: number; contentChars: number }>(
    runTimed(builder.exec, script("prepare.js"), [
      builder.target,
      partial,
      String(seed),
      String(parseSize(size)),
      "check", // the store's integrity check on the result (43 s at 1M; the file is kept)
    ]).stdout,
  );
  // The side files go with it (a -wal a reader still needs, should the close not have
  // checkpointed everything).
  for (const suffix of SIDE_FILES)
    if (existsSync(partial + suffix)) renameSync(partial + suffix, corpus + suffix);
  writeFileSync(summary, `${JSON.stringify(built)}\n`);
  return { corpus, built, reused: false };
}

/** Hash of the built corpus generator: dist/prepare.js and the local chunks it imports. */
function generatorHash(): string {
  const dist = join(pkg, "dist");
  const entry = readFileSync(join(dist, "prepare.js"), "utf8");
  const chunks = [...entry.matchAll(/from\s*"\.\/([^"]+)"/g)].map((m) =>
    readFileSync(join(dist, m[1] as string), "utf8"),
  );
  let hash = 0x811c9dc5;
  for (const text of [entry, ...chunks])
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(36);
}

// 2. Per size: build the corpus once (the first runnable file target), then every target on a copy.
const builder = runnable.find((r) => !SERVER_TARGETS.includes(r.target));
if (!builder) throw new Error("no file target can run on this machine to build the corpus");
for (const size of sizes) {
  const { corpus, built, reused } = corpusFor(size, builder);
  console.error(
    `corpus ${size}: ${built.messages} messages in ${built.sessions} sessions, ${Math.round(built.contentChars / 1e6)} M chars, ${reused ? "reused from the cache (built" : "built"} by ${builder.target} in ${(built.ms / 1000).toFixed(1)} s${reused ? ")" : ""}`,
  );
  for (const { target, exec } of runnable) {
    const out = join(work, `${target}-${size}.json`);
    rmSync(out, { force: true });
    const args = [
      "--target",
      target,
      "--corpus",
      corpus,
      "--work",
      work,
      "--size",
      size,
      "--mode",
      mode,
      "--exec",
      JSON.stringify(exec),
      "--out",
      out,
      // Suites to run (substring match), for measuring one suite without the rest.
      ...(option("only") ? ["--only", option("only") as string] : []),
      // A large store's whole-store jobs run on the builder's target only (plans.ts).
      ...(!smoke && parseSize(size) > LARGE_STORE && target !== builder.target
        ? ["--skip", WHOLE_STORE_SUITES.join(",")]
        : []),
    ];
    const result = results.find((r) => r.target === target) as TargetResult;
    try {
      runTimed(exec, script(runnerOf(target)), args);
      const file = JSON.parse(readFileSync(out, "utf8")) as { result: SizeResult };
      result.sizes[size] = file.result;
      console.error(`${target} ${size}: ${file.result.seconds.toFixed(0)} s`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      result.sizes[size] = {
        messages: 0,
        contentMB: 0,
        metrics: {},
        notes: {},
        errors: { runner: message },
        seconds: 0,
      };
      console.error(`${target} ${size}: runner failed: ${message.split("\n")[0]}`);
    }
  }
}

// 3. Output: JSON per target, one combined JSON, the Markdown table; then the baseline check.
const meta: RunMeta = {
  date: new Date().toISOString(),
  mode,
  seed,
  cores: availableParallelism(),
  sizes,
  seconds: (now() - t0) / 1000,
};
for (const r of results)
  writeFileSync(join(outDir, `${r.target}.json`), `${JSON.stringify({ meta, ...r }, null, 2)}\n`);
writeFileSync(join(outDir, "latest.json"), `${JSON.stringify({ meta, results }, null, 2)}\n`);
const table = markdown(results, meta);
writeFileSync(join(outDir, "results.md"), table);
console.log(table);

const baselineFile = join(pkg, "baseline.json");
if (!smoke && existsSync(baselineFile)) {
  const verdict = compare(JSON.parse(readFileSync(baselineFile, "utf8")) as Baseline, results);
  console.log(
    verdict.regressions.length === 0
      ? `baseline: ${verdict.compared} ratios within tolerance.`
      : `baseline: ${verdict.regressions.length} regression(s) (run npm run bench:check for the verdict):\n  ${verdict.regressions.join("\n  ")}`,
  );
}
