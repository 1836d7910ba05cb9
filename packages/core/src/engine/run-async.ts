/**
 * The async runner: performs an operation's effects on an asynchronous executor (a server
 * engine's client, or the in-process test double). Transactions are the executor's
 * `transaction(mode, fn)` — never BEGIN/COMMIT strings, which server protocols drop. It performs
 * I/O only: the Store's policy (guards, patience, fail-open, classification) is operations the
 * sync runner runs too (policy/calls.ts).
 */
import type { RunResult } from "../driver.js";
import { isContention, SqliteError } from "../errors.js";
import type { AsyncAdmission, AsyncExecutor, AsyncStatements } from "../executor.js";
import type { AdmissionOutcome, Effect, Op } from "./effects.js";
import { savepoint } from "./savepoint.js";
import { sleepAsync } from "./sleep.js";

export interface AsyncEnvironment {
  executor: AsyncExecutor;
  /** What the `state` effect answers (the store's policy state; the runner never reads it). */
  policy: unknown;
  /** The FTS admission (rebuilds); without one, a rebuild is refused as "environment". */
  admission?: AsyncAdmission;
  now(): number;
}

/** Where an operation's statements go: the executor (depth 0), or an open transaction. */
export interface AsyncScope {
  readonly target: AsyncStatements;
  /** The transactions `target` is inside (0: none). */
  readonly depth: number;
  /** The outermost transaction `target` is inside, while it runs (absent at depth 0). */
  readonly transaction?: TransactionRun;
}

/** One attempt of an outermost transaction, as the runner tracks it. */
export interface TransactionRun {
  /** A caller's function (`store.transaction`'s body) has started inside it: from then on the
   * attempt is never run again (see `lostAfterBody`). */
  bodyStarted: boolean;
}

/** Run `op` to completion on `env`, outside any transaction, or inside `scope`'s. */
export function runAsync<T>(env: AsyncEnvironment, op: Op<T>, scope?: AsyncScope): Promise<T> {
  return drive(env, op, scope ?? { target: env.executor, depth: 0 });
}

async function drive<T>(env: AsyncEnvironment, op: Op<T>, scope: AsyncScope): Promise<T> {
  let step = op.next();
  for (;;) {
    if (step.done) return step.value;
    let result: unknown;
    try {
      result = await perform(env, step.value, scope);
    } catch (error) {
      step = op.throw(error);
      continue;
    }
    step = op.next(result);
  }
}

/** `scope`, one transaction deeper (a savepoint inside it). */
function deeper(scope: AsyncScope): AsyncScope {
  return { ...scope, depth: scope.depth + 1 };
}

async function perform(env: AsyncEnvironment, effect: Effect, scope: AsyncScope) {
  const { target, depth } = scope;
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
    case "transaction":
      if (depth === 0) return outermost(env, effect.mode, effect.body, effect.foreignKeys);
      if (effect.foreignKeys === "off")
        throw new Error("foreign keys can only be switched off outside a transaction");
      if (effect.mode === "read") return drive(env, effect.body(), scope);
      return drive(env, savepoint(depth + 1, effect.body), deeper(scope));
    case "depth":
      return depth;
    case "state":
      return env.policy;
    case "admitted":
      return admitted(env, effect.timeoutMs, () => drive(env, effect.body(), scope));
    case "external":
      return external(effect.fn, scope);
    case "local":
      return undefined;
    case "offer":
      return undefined;
    case "now":
      return env.now();
    case "pause":
      return sleepAsync(effect.ms);
    case "await":
      return effect.fn();
    case "readsTextWhole":
      return env.executor.readsTextWhole;
    case "remember": {
      let facts = remembered.get(env.executor);
      if (!facts) {
        facts = new Map();
        remembered.set(env.executor, facts);
      }
      if (!facts.has(effect.key)) facts.set(effect.key, await drive(env, effect.body(), scope));
      return facts.get(effect.key);
    }
  }
}

/** Run `body` holding the engine's admission, renewing its lease while the body runs. */
async function admitted(
  env: AsyncEnvironment,
  timeoutMs: number,
  body: () => Promise<unknown>,
): Promise<AdmissionOutcome<unknown>> {
  if (!env.admission) {
    return {
      admitted: false,
      reason: "environment",
      message:
        "This store has no FTS admission (createAsyncStore's `admission` option), so no full rebuild may run; search stays correct by LIKE.",
    };
  }
  const answer = await env.admission.acquire({ timeoutMs });
  if (!answer.admitted) {
    const { reason, message, code } = answer;
    return code === undefined
      ? { admitted: false, reason, message }
      : { admitted: false, reason, message, code };
  }
  const { lease } = answer;
  const renewing =
    lease.renewEveryMs !== undefined && lease.renewEveryMs > 0
      ? setInterval(() => {
          // A renewal that fails loses the lease at worst: another client may rebuild too,
          // re-seeding the backfill this one's steps then help to finish.
          lease.renew().catch(() => undefined);
        }, lease.renewEveryMs)
      : undefined;
  try {
    return { admitted: true, value: await body() };
  } finally {
    if (renewing !== undefined) clearInterval(renewing);
    await lease.release().catch(() => undefined);
  }
}

/** `remember` results, per executor. */
const remembered = new WeakMap<object, Map<string, unknown>>();

/**
 * One outermost transaction of the executor. A failure after a caller's function started inside
 * it (`store.transaction`'s body) is never one that patience may answer by running it again:
 * the body may have done things outside the transaction (effects of its own) that a second run
 * would repeat — see `lostAfterBody`.
 */
async function outermost(
  env: AsyncEnvironment,
  mode: "write" | "read",
  body: () => Op<unknown>,
  foreignKeys?: "off",
): Promise<unknown> {
  const run: TransactionRun = { bodyStarted: false };
  const fn = (tx: AsyncStatements) => drive(env, body(), { target: tx, depth: 1, transaction: run });
  try {
    return await (foreignKeys === "off"
      ? env.executor.transaction(mode, fn, { foreignKeys: "off" })
      : env.executor.transaction(mode, fn));
  } catch (error) {
    throw run.bodyStarted && isContention(error) ? lostAfterBody(error) : error;
  }
}

/** The transaction ended under a body that had already run (a server that rolled it back on its
 * transaction timeout, a connection lost before COMMIT): BUSY-like, but not to be retried. */
function lostAfterBody(error: SqliteError): SqliteError {
  return new SqliteError(
    "ABORT",
    `The transaction was rolled back after its function had started (${error.message.replace(/\.$/, "")}). None of the calls made on the store the function received are stored; anything it did outside the store stands. It was not run again, since that would repeat it; read back what you need, then run it again if it is safe to repeat.`,
    { extendedCode: "SQLITE_ABORT_ROLLBACK", cause: error },
  );
}

/** Call a caller's function inside the scope's transaction. In the outermost transaction it runs
 * only once the transaction holds its lock: an engine that sends BEGIN with the first statement
 * (a server client) would otherwise report a busy lock from inside the function, after it had
 * started — and a function that started is never run again. */
async function external(fn: (scope: unknown) => unknown, scope: AsyncScope): Promise<unknown> {
  const run = scope.transaction;
  if (run !== undefined && !run.bodyStarted && scope.depth === 1) {
    await scope.target.execute("SELECT 1", []);
    run.bodyStarted = true;
  }
  return fn(scope);
}
