/**
 * `repairStore`, loading repair/ on its first call: a process that never repairs never parses
 * it (the build makes it a chunk of its own). Repair sits above the stores — it opens scratch
 * copies with `createStore` — so nothing a store loads may reach it; this module is what the
 * public entry and the runtime contract call.
 */
import type { RepairOptions, RepairReport } from "./repair/types.js";
import { repairInput } from "./store/options.js";

/**
 * Repair the damaged store at `path` with the least loss, never writing the damaged file: the
 * work happens on a scratch copy, the least destructive strategy that yields a sound store with
 * every row wins (a row-by-row salvage is the last resort), and unless only a check is asked
 * for, the repaired store takes the path's name while the damaged file is kept beside it as
 * `<db>.corrupt-<timestamp>`. Resolves to the report (repair/repair.ts).
 */
export async function repairStore(path: string, options: RepairOptions): Promise<RepairReport> {
  const input = repairInput(path, options);
  const repair = await import("./repair/repair.js");
  return repair.repairStore(input.path, input.options);
}
