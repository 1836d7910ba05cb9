/**
 * Loading jobs.ts (import, delete, vacuum, backup) on first use. Every such call already
 * returns a promise, so waiting for the module changes no signature; what must not wait is the
 * refusal inside `store.transaction`, which `onDemand` checks before loading, at the moment of
 * the call, as the job itself did when it started at once.
 */
import { awaited, type Op } from "./engine/effects.js";
import { guard } from "./policy/calls.js";

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
