/**
 * Build the corpus store for one size (once per run; every target gets a copy of the file).
 * Usage: <runtime> dist/prepare.js <target> <db> <seed> <messages>; prints one JSON line.
 */
import process from "node:process";
import { buildStore } from "../corpus/index.js";
import { loadEngine, type TargetId } from "../engine.js";
import { now } from "../stats.js";

const [target, path, seed, messages] = process.argv.slice(2) as [TargetId, string, string, string];
const engine = await loadEngine(target);
const store = engine.openStore(path);
const t0 = now();
const summary = buildStore(store, { seed: Number(seed), messages: Number(messages), batch: 64 });
const ms = now() - t0;
store.close();
const { tokens, ...rest } = summary;
const sample = tokens.filter((t) => t.indexedByFts && t.role !== "tool").slice(0, 20);
process.stdout.write(`${JSON.stringify({ ...rest, ms, sampleTokens: sample.map((t) => t.token) })}\n`);
