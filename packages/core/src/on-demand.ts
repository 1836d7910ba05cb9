/**
 * Loading jobs.ts (import, delete, vacuum, backup, repair) on first use. Every such call already
 * returns a promise, so waiting for the module changes no signature; what must not wait is the
 * refusal inside `store.transaction`, which `onDemand` checks before loading, at the moment of
 * the call, as the job itself did when it started at once.
 */
import { awaited, guard, type Op } from "./engine/effects.js";
import type { RepairOptions, RepairReport } from "./repair/types.js";
import { repairInput } from "./store/options.js";

type Jobs = typeof import("./jobs.js");

let loading: Promise<Jobs> | undefined;

/** The jobs module, loaded once per process (a failed load is tried again on the next call). */
export function loadJobs(): Promise<Jobs> {
  loading ??= import("./jobs.js").catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** The operation `start` makes from the loaded jobs module; `name` is refused inside a
 * transaction and on a closed store before anything loads. */
export function* onDemand<T>(name: string, start: (jobs: Jobs) => Op<T>): Op<T> {
  yield* guard("open", name);
  const jobs = yield* awaited(loadJobs);
  return yield* start(jobs);
}

/**
 * Repair the damaged store at `path` with the least loss, never writing the damaged file: the
 * work happens on a scratch copy, the least destructive strategy that yields a sound store with
 * every row wins (a row-by-row salvage is the last resort), and unless only a check is asked
 * for, the repaired store takes the path's name while the damaged file is kept beside it as
 * `<db>.corrupt-<timestamp>`. Resolves to the report (repair/repair.ts).
 */
export async function repairStore(path: string, options: RepairOptions): Promise<RepairReport> {
  const input = repairInput(path, options);
  return (await loadJobs()).repairStore(input.path, input.options);
}
