/**
 * Repair: `repairStore(cfg.store)` through the runtime's adapter, with every other process
 * stopped; reports what it did (`repaired`: strategy, attempts, counts, losses, outcome, where
 * the damaged original was kept) or the error (`error`).
 */
import { describeError } from "./lib/runtime.mjs";

export async function repair({ cfg, report, adapter }) {
  const started = Date.now();
  try {
    const result = await adapter.mod.repairStore(cfg.store, adapter.repairOptions);
    report.event("repaired", {
      ms: Date.now() - started,
      strategy: result.strategy ?? null,
      problemsBefore: result.problemsBefore.length,
      problems: result.problemsBefore.slice(0, 10),
      attempts: result.attempts.map((a) => ({ strategy: a.strategy, ok: a.ok, problem: a.problems[0] })),
      countsBefore: result.countsBefore,
      countsAfter: result.countsAfter ?? null,
      lost: result.lost ?? null,
      outcome: result.outcome,
      original: result.original ?? null,
    });
  } catch (error) {
    report.event("error", { error: describeError(error, adapter.mod.SessionDbError) });
  }
}
