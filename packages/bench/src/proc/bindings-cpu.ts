/**
 * CPU time per call of each bindings row (bindings-work.ts), binding against plain Store, in one
 * process: `rounds` rounds of `calls` calls per side, the order of the sides flipped every round
 * (so warm-up, a growing file or a busier machine hit both alike). CPU time
 * (`process.cpuUsage()`, user + system) rather than wall time, which a loaded machine stretches;
 * fsync waits count on neither side. Prints one JSON line: per row, µs per call per side (the
 * median round) and the ratio of the sides' total CPU time (a WAL checkpoint costs the commit
 * that triggers it: over all rounds each side pays for the pages it wrote, where a single
 * round's ratio depends on which side's block the checkpoint fell in). Not part of `npm run bench`; HISTORY.md's CPU tables come from it.
 * Usage: <runtime> dist/proc/bindings-cpu.js <target> <dir> [rounds] [calls per round] [row]
 * (`row`: only the rows whose name contains it, e.g. `claude.append` under `--cpu-prof`).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { loadEngine, type TargetId } from "../engine.js";
import { median } from "../stats.js";
import { bindingsWork } from "../suites/bindings-work.js";

const [target, dir, rounds = "6", count = "300", only = ""] = process.argv.slice(2) as [
  TargetId,
  string,
  string?,
  string?,
  string?,
];
const engine = await loadEngine(target);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const store = engine.openStore(join(dir, "bindings.db"));

async function cpuPerCall(fn: () => unknown, calls: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const out: Record<string, { binding: number; plain: number; ratio: number }> = {};
for (const row of (await bindingsWork(store)).filter((r) => r.name.includes(only))) {
  const us = { binding: [] as number[], plain: [] as number[] };
  for (let round = 0; round < Number(rounds); round++) {
    const order = round % 2 === 0 ? (["binding", "plain"] as const) : (["plain", "binding"] as const);
    for (const side of order) us[side].push(await cpuPerCall(row[side], Number(count)));
  }
  out[row.name] = {
    binding: Math.round(median(us.binding)),
    plain: Math.round(median(us.plain)),
    ratio: Math.round((sum(us.binding) / sum(us.plain)) * 100) / 100,
  };
}
store.close();
console.log(JSON.stringify(out));
