/**
 * The model checker's runner: sequences from a seed, each on a fresh store, and a failing one
 * shrunk to the shortest sequence that still fails (removing runs of operations, halving their
 * length down to one), printed with its seed so `SESSIONDB_SEED` replays it.
 */
import type { ConformanceTarget } from "./harness.js";
import { withFixture } from "./harness.js";
import { type Context, finalChecks, step } from "./model-check.js";
import { generate, type ModelOp, SESSION_IDS } from "./model-ops.js";
import { emptyState } from "./model-state.js";

/** The store's clock starts here (epoch seconds); the checker's explicit timestamps are earlier. */
const CLOCK_START = 2000;

export interface CheckOptions {
  /** The first sequence's seed; sequence n uses seed + n. */
  seed: number;
  /** How many sequences, at most. */
  runs: number;
  /** Operations per sequence. */
  length: number;
  /** Stop starting new sequences after this long (ms). */
  budgetMs: number;
  /** How long shrinking a failure may take (ms). */
  shrinkMs: number;
}

export interface CheckReport {
  sequences: number;
  operations: number;
  /** What the operations did, by kind and outcome. */
  tally: Map<string, number>;
}

/** Run one sequence on a fresh store; the failure (with the index of the operation, or the
 * sequence's length for the final checks), or undefined when the store agreed throughout. */
export async function runSequence(
  target: ConformanceTarget,
  ops: readonly ModelOp[],
  tally: Map<string, number> = new Map(),
): Promise<{ at: number; error: unknown } | undefined> {
  let at = 0;
  try {
    await withFixture(target, async (f) => {
      const ctx: Context = {
        target,
        state: emptyState(),
        clock: CLOCK_START,
        store: undefined as never,
        reopen: () => f.open({ now: () => ctx.clock * 1000 }),
        tally,
      };
      ctx.store = await ctx.reopen();
      for (; at < ops.length; at++) await step(ctx, ops[at] as ModelOp);
      await finalChecks(ctx, SESSION_IDS);
      await ctx.store.close();
    });
    return undefined;
  } catch (error) {
    return { at, error };
  }
}

/** Remove runs of operations while the sequence still fails; the shortest found in `budgetMs`. */
export async function shrink(
  target: ConformanceTarget,
  ops: readonly ModelOp[],
  failure: { at: number; error: unknown },
  budgetMs: number,
): Promise<{ ops: ModelOp[]; failure: { at: number; error: unknown }; tries: number }> {
  const deadline = Date.now() + budgetMs;
  let best = { ops: ops.slice(0, failure.at + 1), failure };
  let tries = 0;
  for (let size = Math.ceil(best.ops.length / 2); size >= 1 && Date.now() < deadline; ) {
    let removed = false;
    for (let from = 0; from < best.ops.length && Date.now() < deadline; ) {
      const candidate = [...best.ops.slice(0, from), ...best.ops.slice(from + size)];
      tries++;
      const result = await runSequence(target, candidate);
      if (result) {
        best = { ops: candidate.slice(0, result.at + 1), failure: result };
        removed = true;
      } else {
        from += size;
      }
    }
    if (!removed) size = Math.floor(size / 2);
    else size = Math.min(size, Math.ceil(best.ops.length / 2));
  }
  return { ...best, tries };
}

/** Run sequences until `runs` or the budget; a failure is shrunk and thrown with its seed. */
export async function checkAgainstModel(
  target: ConformanceTarget,
  options: CheckOptions,
): Promise<CheckReport> {
  const started = Date.now();
  const report: CheckReport = { sequences: 0, operations: 0, tally: new Map() };
  for (let n = 0; n < options.runs && (n === 0 || Date.now() - started < options.budgetMs); n++) {
    const seed = options.seed + n;
    const ops = generate(seed, options.length);
    const failure = await runSequence(target, ops, report.tally);
    report.sequences++;
    report.operations += failure ? failure.at + 1 : ops.length;
    if (!failure) continue;
    const shrunk = await shrink(target, ops, failure, options.shrinkMs);
    const message =
      shrunk.failure.error instanceof Error ? shrunk.failure.error.message : String(shrunk.failure.error);
    throw new Error(
      `[model] ${target.name}: sequence seed ${seed} (SESSIONDB_SEED=${seed} replays it first) failed at ` +
        `operation ${failure.at} of ${ops.length}; shrunk in ${shrunk.tries} tries to ${shrunk.ops.length} ` +
        `operations, failing at ${shrunk.failure.at}:\n${shrunk.ops.map((op, i) => `  ${i}: ${JSON.stringify(op, shortened)}`).join("\n")}\n${message}`,
    );
  }
  return report;
}

/** Long strings printed by their start and length (the seed replays them whole). */
function shortened(_key: string, value: unknown): unknown {
  return typeof value === "string" && value.length > 80
    ? `${value.slice(0, 40)}… (${value.length} characters)`
    : value;
}
