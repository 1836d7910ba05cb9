/**
 * CPU per append of two builds of sessiondb in one process: an A/B of a change to the write
 * path. Each side is a folder whose `node_modules/@sessiondb/` holds a build of core and of the
 * target's adapter (this worktree's root, or a copy of the parent commit's `dist/` folders laid
 * out so; HISTORY.md says how), opened through its own adapter on a file of its own. The sides
 * take turns of 10 calls, the order flipped every turn, so warm-up, the files' growth and the
 * machine's other load hit both alike. CPU time (`process.cpuUsage()`, user + system) rather
 * than wall time, which a loaded machine stretches; over all turns each side pays for the
 * checkpoints its own commits trigger. Prints one JSON line: µs of CPU per call per side, and
 * B's total over A's. Not part of `npm run bench`; HISTORY.md's A/B tables come from it.
 * Usage: <runtime> dist/proc/append-ab.js <target> <root A> <root B> <dir>
 *        [calls per side] [messages per call] [durability] [corpus | short]
 * (`short`: one short sentence per message, so that the SQL's share shrinks and the JavaScript
 * around it shows.)
 */
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import type { MessageInput, Store, StoreOptions } from "@sessiondb/core";
import type { TargetId } from "../engine.js";
import { sampleMessages } from "../raw-append.js";

const [target, rootA, rootB, dir, count = "2000", size = "1", durability = "normal", kind = "corpus"] =
  process.argv.slice(2) as [TargetId, string, string, string, string?, string?, string?, string?];
const calls = Number(count);
const perCall = Number(size);
const BLOCK = 10;

const ADAPTER: Record<string, [string, string | undefined]> = {
  "node-better-sqlite3": ["node", "better-sqlite3"],
  "node-sqlite": ["node", "node:sqlite"],
  "bun-sqlite": ["bun", undefined],
  "deno-node-sqlite": ["deno", undefined],
};

/** A side: its own adapter's store on a file of its own, with one session. */
async function openSide(root: string, name: string): Promise<Store> {
  const [adapter, driver] = ADAPTER[target] ?? [];
  if (adapter === undefined) throw new Error(`no file target ${target}`);
  const entry = pathToFileURL(join(resolve(root), "node_modules/@sessiondb", adapter, "dist/index.js"));
  const mod = (await import(entry.href)) as { openStore(path: string, options?: object): Store };
  const options = { durability } as StoreOptions;
  const store = mod.openStore(join(dir, `${name}.db`), driver ? { ...options, driver } : options);
  store.createSession({ id: "ab", source: "bench" });
  return store;
}

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const stores = { a: await openSide(rootA, "a"), b: await openSide(rootB, "b") };
const messages: MessageInput[] =
  kind === "short"
    ? Array.from({ length: 2000 }, (_, i) => ({ role: "user", content: `a short message, number ${i}` }))
    : sampleMessages(Math.max(2000, perCall * 100), 777, true);
const cpu = { a: 0, b: 0 };

function turn(store: Store, from: number): number {
  const start = process.cpuUsage();
  for (let i = from; i < from + BLOCK; i++) {
    const at = (i * perCall) % (messages.length - perCall);
    if (perCall === 1) store.appendMessage("ab", messages[at] as MessageInput);
    else store.appendMessages("ab", messages.slice(at, at + perCall));
  }
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

// Warm-up (JIT, statement cache, the files' first pages): not counted.
for (let i = 0; i < 200; i += BLOCK) for (const side of ["a", "b"] as const) turn(stores[side], i);
for (let done = 0; done < calls; done += BLOCK) {
  const order = (done / BLOCK) % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
  for (const side of order) cpu[side] += turn(stores[side], done);
}
stores.a.close();
stores.b.close();
rmSync(dir, { recursive: true, force: true });
const us = (total: number) => Math.round((total / calls) * 10) / 10;
process.stdout.write(
  `${JSON.stringify({
    target,
    runtime: `${process.release.name} ${process.version}`,
    calls,
    perCall,
    durability,
    messages: kind,
    cpuUsPerCall: { a: us(cpu.a), b: us(cpu.b) },
    bOverA: Math.round((cpu.b / cpu.a) * 1000) / 1000,
  })}\n`,
);
