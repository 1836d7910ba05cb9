#!/usr/bin/env node
/**
 * Build step after tsup: join the chunks a store's open path loads into one module.
 *
 * esbuild splits shared code by which entry points (the four public ones and the two loaded on
 * demand, jobs and repair) reach it, so the code `@sessiondb/core` and `/driver` load came out as
 * seven chunks, nine modules with the entries. On Node each module of a process's start costs
 * its own resolve, read, compile and link, and joining them measured 9–15 ms less CPU per
 * process on Node 24 and 11–20 ms on Node 20 (import, open, last 50 or append one, close, against
 * the same code in nine modules; packages/bench/HISTORY.md, "A process loads fewer modules").
 * esbuild has no way to say which chunks to join, Rollup does (`manualChunks`): it reads tsup's
 * output as it is and writes it back with every chunk the two entries import, directly or not,
 * as one chunk. What loads on demand (jobs, repair and what only they share) keeps chunks of its
 * own; `host` and `testing` import the joined chunk. Nothing is minified or renamed here beyond
 * what joining needs. Any Rollup warning fails the build: this step must not change the code.
 */
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rollup } from "rollup";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const entries = ["index", "driver", "host", "testing"];
/** The entries whose static imports make up the open path. */
const OPEN_PATH_ENTRIES = ["index", "driver"];

const built = readdirSync(dist).filter((file) => file.endsWith(".js"));
const bundle = await rollup({
  input: Object.fromEntries(entries.map((name) => [name, join(dist, `${name}.js`)])),
  external: (id) => /^(node:|bun:|@sessiondb\/)/.test(id),
  // tsup's output is tree-shaken already; Rollup only moves it between files.
  treeshake: false,
  onwarn(warning) {
    throw new Error(`join-open-path: ${warning.message}`);
  },
});

/** Every module the open-path entries import statically, the entries themselves left out. */
function openPathModules(getModuleInfo) {
  const found = new Set();
  const visit = (id) => {
    for (const imported of getModuleInfo(id)?.importedIds ?? []) {
      if (found.has(imported) || getModuleInfo(imported)?.isExternal) continue;
      found.add(imported);
      visit(imported);
    }
  };
  for (const name of OPEN_PATH_ENTRIES) visit(join(dist, `${name}.js`));
  return found;
}

let open;
for (const file of built) rmSync(join(dist, file));
await bundle.write({
  dir: dist,
  format: "es",
  entryFileNames: "[name].js",
  // tsup's names carry a hash already (jobs-6M5WP3F7): keep the name, take Rollup's hash.
  chunkFileNames: (chunk) => `${chunk.name.replace(/-[A-Z0-9]{8}$/, "")}-[hash].js`,
  manualChunks(id, { getModuleInfo }) {
    open ??= openPathModules(getModuleInfo);
    return open.has(id) ? "store" : undefined;
  },
});
await bundle.close();
