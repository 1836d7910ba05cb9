/**
 * `npm run bench:check`: compare the tracked ratios of the latest run (results/latest.json)
 * with baseline.json; exit 1 naming every ratio that regressed beyond its tolerance.
 * `--update` writes the latest run's ratios as the new baseline instead; `--update --merge`
 * keeps, per ratio, the less favourable of the baseline's and the latest run's value (calibrate
 * with two or more runs, so one lucky run on a noisy machine does not become the bar).
 * `--metrics a,b` (with `--update --merge`) takes only the ratios whose names start with one of
 * those prefixes from the latest run — for adding or recalibrating some rows after a run of only
 * the suites that measure them, leaving every other ratio as it was. `--sizes 1m` (same) takes
 * only the ratios of those corpus sizes.
 *   node dist/check.js [--results FILE] [--update [--merge [--metrics PREFIXES] [--sizes SIZES]]]
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { type Baseline, compare, mergeWorst, onlyMetrics, onlySizes, ratiosOf } from "./baseline.js";
import type { TargetResult } from "./metrics.js";

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const i = process.argv.indexOf("--results");
const file = i >= 0 ? (process.argv[i + 1] as string) : join(pkg, "results", "latest.json");
if (!existsSync(file)) {
  console.error(`bench:check: no results at ${file}. Run "npm run bench" first.`);
  process.exit(2);
}
const latest = JSON.parse(readFileSync(file, "utf8")) as {
  meta: { date: string; mode: string };
  results: TargetResult[];
};
if (latest.meta.mode !== "full") {
  console.error(
    `bench:check: ${file} is a ${latest.meta.mode} run; timings from it mean nothing. Run "npm run bench".`,
  );
  process.exit(2);
}
const baselineFile = join(pkg, "baseline.json");

if (process.argv.includes("--update")) {
  const baseline: Baseline = {
    date: latest.meta.date,
    machine: `${availableParallelism()} cores, ${cpus()[0]?.model ?? "unknown CPU"}`,
    note: "Ratios to in-run references (see README). Refresh with: npm run bench && npm run bench:check -- --update",
    ratios: ratiosOf(latest.results),
  };
  const list = (name: string) => {
    const at = process.argv.indexOf(`--${name}`);
    if (at < 0) return undefined;
    if (!process.argv.includes("--merge")) {
      console.error(`bench:check: --${name} only goes with --update --merge (it keeps every other ratio).`);
      process.exit(2);
    }
    return (process.argv[at + 1] ?? "").split(",").filter(Boolean);
  };
  const prefixes = list("metrics");
  if (prefixes) baseline.ratios = onlyMetrics(baseline.ratios, prefixes);
  const sizes = list("sizes");
  if (sizes) baseline.ratios = onlySizes(baseline.ratios, sizes);
  if (process.argv.includes("--merge") && existsSync(baselineFile)) {
    const old = JSON.parse(readFileSync(baselineFile, "utf8")) as Baseline;
    baseline.ratios = mergeWorst(old.ratios, baseline.ratios);
    baseline.date = `${old.date} … ${latest.meta.date}`;
    baseline.note += " Merged over several runs: each ratio is the least favourable one seen.";
  }
  writeFileSync(baselineFile, `${JSON.stringify(baseline, null, 2)}\n`);
  console.log(`bench:check: wrote ${baselineFile} from the run of ${latest.meta.date}.`);
  process.exit(0);
}

const baseline = JSON.parse(readFileSync(baselineFile, "utf8")) as Baseline;
const verdict = compare(baseline, latest.results);
for (const missing of verdict.missing)
  console.log(`not measured in this run (skipped target or failed suite): ${missing}`);
if (verdict.regressions.length > 0) {
  console.error(
    `bench:check: ${verdict.regressions.length} ratio(s) regressed against the baseline of ${baseline.date}:`,
  );
  for (const line of verdict.regressions) console.error(`  ✗ ${line}`);
  process.exit(1);
}
console.log(
  `bench:check: ${verdict.compared} ratios within tolerance of the baseline of ${baseline.date} (run of ${latest.meta.date}).`,
);
