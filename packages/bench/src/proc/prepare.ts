/**
 * Build the corpus store for one size (once, then cached; every target gets a copy of the file).
 * Usage: <runtime> dist/prepare.js <target> <db> <seed> <messages> [check]; prints one JSON line.
 * With `check` the store's integrity check runs on the result (minutes at 1M).
 */
import process from "node:process";
import { bulkBuild } from "../corpus-build.js";
import { loadEngine, type TargetId } from "../engine.js";
import { now } from "../stats.js";

const [target, path, seed, messages, check] = process.argv.slice(2) as [
  TargetId,
  string,
  string,
  string,
  string?,
];
const engine = await loadEngine(target);
const t0 = now();
const summary = bulkBuild(engine, path, {
  seed: Number(seed),
  messages: Number(messages),
  check: check === "check",
});
const ms = now() - t0;
const { tokens, ...rest } = summary;
const sample = tokens.filter((t) => t.indexedByFts && t.role !== "tool").slice(0, 20);
process.stdout.write(`${JSON.stringify({ ...rest, ms, sampleTokens: sample.map((t) => t.token) })}\n`);
