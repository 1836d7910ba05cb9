/**
 * Conformance: the model checker. Random sequences of Store operations — sessions created,
 * renamed, archived, ended, deleted and pruned; appends single and batched, huge, with NUL,
 * astral characters and lone surrogates, repeated external ids, usage and inactive rows;
 * updateMessage; usage; searches on every route; rebuild, backfill steps and optimize;
 * transaction bodies whose calls fail and whose end throws; close and reopen — run on the store
 * and on a plain model of what it promises (model-state.ts), comparing every answer and error
 * code. A failure is shrunk to the shortest failing sequence and printed with its seed.
 *
 * The seed is `SESSIONDB_SEED` when set, else the time; it is printed either way. The short run
 * in every suite is a fixed number of sequences; `SESSIONDB_SOAK_RUNS` and
 * `SESSIONDB_SOAK_MINUTES` make it a long one (`npm run soak`).
 */
import process from "node:process";
import { type ConformanceTarget, isAsyncTarget } from "./harness.js";
import { type CheckOptions, checkAgainstModel } from "./model-run.js";

/** The short run: sequences per target (a server target opens slower) and their length. */
const SHORT_RUNS = 6;
const SHORT_RUNS_ASYNC = 3;
const SHORT_LENGTH = 40;
/** A soak's sequences are longer: more state for each operation to meet. */
const SOAK_LENGTH = 80;

/** An environment variable, or undefined where the runtime may not read it (Deno without
 * `--allow-env` for it). */
function env(name: string): string | undefined {
  try {
    return process.env[name];
  } catch {
    return undefined;
  }
}

function settings(target: ConformanceTarget): CheckOptions {
  const seed = env("SESSIONDB_SEED") ? Number(env("SESSIONDB_SEED")) : Date.now() % 1_000_000_000;
  if (!Number.isSafeInteger(seed))
    throw new Error(`SESSIONDB_SEED is not an integer: ${env("SESSIONDB_SEED")}`);
  const minutes = Number(env("SESSIONDB_SOAK_MINUTES") ?? 0);
  const soakRuns = Number(env("SESSIONDB_SOAK_RUNS") ?? 0);
  if (minutes > 0 || soakRuns > 0) {
    return {
      seed,
      runs: soakRuns || Number.MAX_SAFE_INTEGER,
      length: SOAK_LENGTH,
      budgetMs: (minutes || 24 * 60) * 60_000,
      shrinkMs: 300_000,
    };
  }
  const runs = isAsyncTarget(target) ? SHORT_RUNS_ASYNC : SHORT_RUNS;
  return { seed, runs, length: SHORT_LENGTH, budgetMs: Number.POSITIVE_INFINITY, shrinkMs: 20_000 };
}

export function modelSuite(target: ConformanceTarget): void {
  target.describe("model checker", () => {
    target.it("random operation sequences answer as the model says", async () => {
      const options = settings(target);
      const started = Date.now();
      console.log(`[model] ${target.name}: seed ${options.seed} (set SESSIONDB_SEED to replay)`);
      const report = await checkAgainstModel(target, options);
      console.log(
        `[model] ${target.name}: seed ${options.seed}: ${report.sequences} sequences, ${report.operations} operations agreed with the model in ${Date.now() - started} ms`,
      );
      const tally = [...report.tally].sort(([a], [b]) => (a < b ? -1 : 1));
      console.log(`[model] ${target.name}: ${tally.map(([what, n]) => `${what}: ${n}`).join(", ")}`);
    });
  });
}
