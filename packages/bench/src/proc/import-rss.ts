/**
 * importFrom of one long transcript in a fresh process, its memory watched: the resident set
 * after the adapter and the importer are loaded and the store is open (the base), and its
 * highest value while the import runs (sampled at every progress report, i.e. after every chunk
 * of rows, and read from the kernel's high-water mark where there is one). The importer streams
 * a file a line at a time: what it holds must not grow with the file.
 * Usage: <runtime> dist/proc/import-rss.js <target> <db> <root>
 * Prints one JSON line: { baseMiB, peakMiB, exact, messages, ms }.
 */
import process from "node:process";
import type { Store } from "@sessiondb/core";
import { loadEngine, type TargetId } from "../engine.js";
import { now, peakRssMiB } from "../stats.js";

const [target, db, root] = process.argv.slice(2) as [TargetId, string, string];
const engine = await loadEngine(target);
const specifier = "@sessiondb/formats";
const { claudeCode, importFrom } = (await import(specifier)) as {
  claudeCode: unknown;
  importFrom(
    store: Store,
    format: unknown,
    roots: string[],
    options: { onProgress(): void },
  ): Promise<{ messages: number }>;
};
const store = engine.openStore(db);
const mib = () => process.memoryUsage().rss / (1024 * 1024);
const baseMiB = mib();
let sampled = baseMiB;
const t0 = now();
const result = await importFrom(store, claudeCode, [root], {
  onProgress: () => {
    sampled = Math.max(sampled, mib());
  },
});
const ms = now() - t0;
store.close();
// The kernel's high-water mark includes the load before the base: the larger of the two is
// an upper bound of the import's peak.
const hwm = peakRssMiB();
const peakMiB = hwm.exact ? Math.max(hwm.mib, sampled) : sampled;
console.log(JSON.stringify({ baseMiB, peakMiB, exact: hwm.exact, messages: result.messages, ms }));
