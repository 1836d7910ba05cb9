#!/usr/bin/env node
/**
 * The "deliberately broken build" exercise, without touching the tree: copies the BUILT
 * @sessiondb/core, @sessiondb/node and @sessiondb/bun (package.json + dist) into a scratch
 * node_modules, applies one named patch to the scratch copy of core's dist, and prints the
 * environment that points the chamber's roles at it:
 *
 *   node src/chamber/broken-build.mjs <patch>     # prints SESSIONDB_CHAMBER_MODULES=…
 *   SESSIONDB_CHAMBER_MODULES=… SESSIONDB_CHAMBER_RUNTIMES=node20,node24,bun npm run chamber
 *
 * Deno is left out: the Deno adapter resolves @sessiondb/core through the Deno workspace (the
 * TypeScript sources), not through node_modules, so it would run the unbroken code.
 */
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

/** Each patch: [what it breaks, the dist text to find, its replacement]. */
const PATCHES = {
  "no-admission": [
    "acquireAdmission admits every caller at once: the cross-process rebuild lock is gone",
    "function acquireAdmission(driver, dbPath, options) {",
    "function acquireAdmission(driver, dbPath, options) {\n  return { admitted: true, release() {} };",
  ],
  "progress-outside-tx": [
    "a backfill step commits the indexed window, then writes its progress in a second transaction",
    "    afterIndex?.();\n    ctx.statement(UPSERT_META_SQL).run(META_BACKFILL_PROGRESS, String(end));",
    '    afterIndex?.();\n    ctx.conn.exec("COMMIT");\n    ctx.conn.exec("BEGIN IMMEDIATE");\n    ctx.statement(UPSERT_META_SQL).run(META_BACKFILL_PROGRESS, String(end));',
  ],
  "torn-batch": [
    "appendMessages commits after every row of a batch instead of once for the batch",
    "        return rows.map(\n          (row) => insert.run(",
    '        return rows.map(\n          (row, i) => (i > 0 && (this.#conn.exec("COMMIT"), this.#conn.exec("BEGIN IMMEDIATE")), insert).run(',
  ],
};

const name = process.argv[2];
const patch = PATCHES[name];
if (!patch) {
  console.error(`usage: broken-build.mjs <${Object.keys(PATCHES).join("|")}>`);
  for (const [key, [what]] of Object.entries(PATCHES)) console.error(`  ${key}: ${what}`);
  process.exit(2);
}
const [what, find, replace] = patch;
const scratch = mkdtempSync(join(tmpdir(), `sessiondb-broken-${name}-`));
// The chmod episode runs roles as nobody: they must be able to read the scratch copy.
chmodSync(scratch, 0o755);
const modules = join(scratch, "node_modules");
for (const [pkg, dir] of [
  ["core", "core"],
  ["node", "runtime-node"],
  ["bun", "runtime-bun"],
]) {
  const target = join(modules, "@sessiondb", pkg);
  mkdirSync(target, { recursive: true });
  cpSync(join(REPO, "packages", dir, "package.json"), join(target, "package.json"));
  cpSync(join(REPO, "packages", dir, "dist"), join(target, "dist"), { recursive: true });
}
// The drivers' own dependencies resolve from the real tree.
symlinkSync(join(REPO, "node_modules", "better-sqlite3"), join(modules, "better-sqlite3"));

const dist = join(modules, "@sessiondb", "core", "dist");
let patched = 0;
for (const file of readdirSync(dist).filter((f) => f.endsWith(".js"))) {
  const path = join(dist, file);
  const text = readFileSync(path, "utf8");
  if (!text.includes(find)) continue;
  writeFileSync(path, text.replace(find, replace));
  patched++;
}
if (patched !== 1) {
  console.error(
    `patch ${name}: expected its anchor in exactly one file of ${dist}, found ${patched}; the build changed — update the anchor`,
  );
  process.exit(1);
}
console.error(`patched scratch copy (${what}): ${scratch}`);
console.log(`SESSIONDB_CHAMBER_MODULES=${modules}`);
