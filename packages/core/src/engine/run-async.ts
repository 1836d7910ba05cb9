/**
 * The async runner: performs an operation's effects on an asynchronous executor (a server
 * engine's client, or the in-process test double). Transactions are the executor's
 * `transaction(mode, fn)` — never BEGIN/COMMIT strings, which server protocols drop — and a
 * write body is retried whole with the same patience as on the sync runner.
 */
import type { Row, RunResult, SqlValue } from "../driver.js";
import { withPatienceAsync } from "../locks/patience.js";
import { savepointStatements } from "../transaction.js";
import type { Effect, Op } from "./effects.js";

/** What one statement returns: its rows (empty for data statements), and for data statements
 * the rows changed and the last inserted rowid. */
export interface ExecuteResult {
  rows: Row[];
  changes: number;
  lastInsertRowid: number;
}

/** Statements on an asynchronous engine, inside a transaction or not. */
export interface AsyncStatements {
  execute(sql: string, params: readonly SqlValue[]): Promise<ExecuteResult>;
}

/**
 * What an engine implements for the async runner. One logical connection: statements outside a
 * transaction must not run inside another caller's open transaction (a client gives each
 * transaction its own stream; the test double queues).
 */
export interface AsyncExecutor extends AsyncStatements {
  /** Run `fn` as one transaction, its statements through `tx`: `write` takes the write lock at
   * its start, `read` is one snapshot. Commits when `fn` resolves, rolls back when it rejects;
   * BUSY/LOCKED surfaces as a `SqliteError` so the runner can retry the whole body. */
  transaction<T>(mode: "write" | "read", fn: (tx: AsyncStatements) => Promise<T>): Promise<T>;
  /** Whether the engine reads TEXT past a NUL (it does unless its binding cuts it). */
  readonly readsTextWhole: boolean;
}

export interface AsyncEnvironment {
  executor: AsyncExecutor;
  /** Patience budgets in ms (writes; reads use the write budget too, as on the sync store). */
  patience: { writeMs: number };
  now(): number;
}

/** Run `op` to completion on `env`. */
export function runAsync<T>(env: AsyncEnvironment, op: Op<T>): Promise<T> {
  return drive(env, op, env.executor, 0);
}

/** `depth` counts the transactions `target` is inside (0: none). */
async function drive<T>(
  env: AsyncEnvironment,
  op: Op<T>,
  target: AsyncStatements,
  depth: number,
): Promise<T> {
  let step = op.next();
  for (;;) {
    if (step.done) return step.value;
    let result: unknown;
    try {
      result = await perform(env, step.value, target, depth);
    } catch (error) {
      step = op.throw(error);
      continue;
    }
    step = op.next(result);
  }
}

async function perform(env: AsyncEnvironment, effect: Effect, target: AsyncStatements, depth: number) {
  switch (effect.kind) {
    case "get":
      return (await target.execute(effect.sql, effect.params)).rows[0];
    case "all":
      return (await target.execute(effect.sql, effect.params)).rows;
    case "run": {
      const { changes, lastInsertRowid } = await target.execute(effect.sql, effect.params);
      return { changes, lastInsertRowid } satisfies RunResult;
    }
    case "exec":
      await target.execute(effect.sql, []);
      return undefined;
    case "write":
      if (depth > 0) return nested(env, effect.body, target, depth);
      return withPatienceAsync(
        () => env.executor.transaction("write", (tx) => drive(env, effect.body(), tx, 1)),
        { budgetMs: effect.options?.patienceMs ?? env.patience.writeMs, jitter: "write", now: env.now },
      );
    case "read":
      if (depth > 0) return drive(env, effect.body(), target, depth);
      return withPatienceAsync(() => drive(env, effect.body(), target, 0), {
        budgetMs: env.patience.writeMs,
        jitter: "write",
        now: env.now,
      });
    case "snapshot":
      if (depth > 0) return drive(env, effect.body(), target, depth);
      return withPatienceAsync(
        () => env.executor.transaction("read", (tx) => drive(env, effect.body(), tx, 1)),
        { budgetMs: env.patience.writeMs, jitter: "write", now: env.now },
      );
    case "now":
      return env.now();
    case "readsTextWhole":
      return env.executor.readsTextWhole;
    case "remember": {
      let facts = remembered.get(env.executor);
      if (!facts) {
        facts = new Map();
        remembered.set(env.executor, facts);
      }
      if (!facts.has(effect.key)) facts.set(effect.key, await drive(env, effect.body(), target, depth));
      return facts.get(effect.key);
    }
  }
}

/** `remember` results, per executor. */
const remembered = new WeakMap<object, Map<string, unknown>>();

/** A write inside a transaction: a savepoint, so a body that throws undoes only itself (the
 * same rule as the sync runner's TransactionScope). */
async function nested<T>(
  env: AsyncEnvironment,
  body: () => Op<T>,
  target: AsyncStatements,
  depth: number,
): Promise<T> {
  const savepoint = savepointStatements(depth + 1);
  await target.execute(savepoint.open, []);
  try {
    const result = await drive(env, body(), target, depth + 1);
    await target.execute(savepoint.release, []);
    return result;
  } catch (error) {
    try {
      for (const sql of savepoint.undo) await target.execute(sql, []);
    } catch {
      // The engine already rolled the whole transaction back; its own rollback finds nothing.
    }
    throw error;
  }
}
