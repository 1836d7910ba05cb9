/**
 * The sync runner: performs an operation's effects on an in-process connection, through its
 * environment (the store's context: the prepared-statement cache, nesting transactions, the
 * local file's work). One loop, no promises: an operation costs what its statements cost plus a
 * few generator steps. It performs I/O only; the Store's policy is operations (policy/calls.ts).
 */
import { readsTextWholeOn } from "../binding-facts.js";
import type { SqliteConnection, SqliteDriver, SqliteStatement } from "../driver.js";
import type { TransactionScope } from "../transaction.js";
import type { AdmissionOutcome, Effect, LocalAction, Op } from "./effects.js";
import { savepoint } from "./savepoint.js";
import { sleepAsync, sleepSync } from "./sleep.js";
import { unchangedRows } from "./unchanged-reads.js";

/** What the sync runner performs effects on (the Store builds it: store/context.ts). */
export interface SyncEnvironment {
  /** The single connection. */
  readonly conn: SqliteConnection;
  /** The driver that opened it. */
  readonly driver: SqliteDriver;
  /** What the `state` effect answers (the runner never reads it). */
  readonly policy: unknown;
  /** The connection's transactions (nesting). */
  readonly transactions: TransactionScope;
  /** Cached prepared statement for `sql`. */
  statement(sql: string): SqliteStatement;
  /** Prepared statement for SQL whose text varies with its input (a search's). */
  varyingStatement(sql: string): SqliteStatement;
  /** The local file's own work (`local` effects); without it they answer undefined. */
  local?(action: LocalAction): unknown;
  /** Run `body` holding the FTS admission, or say why not (the `admitted` effect). */
  admitted(timeoutMs: number, body: () => unknown): AdmissionOutcome<unknown>;
  /** Call a caller's function where the operation runs (the `external` effect). */
  external(fn: (scope: unknown) => unknown): unknown;
  /** Wall clock in ms. */
  now(): number;
}

/** Run `op` to completion; its result or its error. */
export function runSync<T>(env: SyncEnvironment, op: Op<T>): T {
  let step = op.next();
  for (;;) {
    if (step.done) return step.value;
    let result: unknown;
    try {
      result = perform(env, step.value);
    } catch (error) {
      step = op.throw(error);
      continue;
    }
    step = op.next(result);
  }
}

/**
 * Run `op` on the sync store's connection, but let its pauses pass as timers and await what its
 * `await` effects return: the store's promise-returning jobs (`backfillFts`, `vacuum`,
 * `importSessions`) give the host's event loop its turn between their steps. Each step's
 * statements still run synchronously, and a failure rejects. A pause inside a transaction
 * (patience inside it) still blocks: another call must not run its statements in this one.
 */
export async function runSyncYielding<T>(env: SyncEnvironment, op: Op<T>): Promise<T> {
  let step = op.next();
  for (;;) {
    if (step.done) return step.value;
    let result: unknown;
    try {
      const effect = step.value;
      if (effect.kind === "pause" && !env.transactions.active) result = await sleepAsync(effect.ms);
      else if (effect.kind === "await") result = await effect.fn();
      else result = perform(env, effect);
    } catch (error) {
      step = op.throw(error);
      continue;
    }
    step = op.next(result);
  }
}

function perform(env: SyncEnvironment, effect: Effect): unknown {
  switch (effect.kind) {
    case "get":
      return env.statement(effect.sql).get(...effect.params);
    case "all":
      if (effect.varying) return env.varyingStatement(effect.sql).all(...effect.params);
      if (effect.untilChange) return unchangedRows(env, effect.sql, effect.params);
      return env.statement(effect.sql).all(...effect.params);
    case "run":
      return env.statement(effect.sql).run(...effect.params);
    case "exec":
      return env.conn.exec(effect.sql);
    case "transaction":
      if (effect.foreignKeys === "off")
        return env.transactions.runWithoutForeignKeys(effect.mode, () => runSync(env, effect.body()));
      return transact(env, effect.mode, effect.body);
    case "depth":
      return env.transactions.depth;
    case "state":
      return env.policy;
    case "admitted":
      return env.admitted(effect.timeoutMs, () => runSync(env, effect.body()));
    case "external":
      return env.external(effect.fn);
    case "local":
      return env.local?.(effect.action);
    case "offer":
      return undefined;
    case "now":
      return env.now();
    case "pause":
      sleepSync(effect.ms);
      return undefined;
    case "await": {
      const value = effect.fn();
      if (typeof (value as { then?: unknown } | null)?.then === "function")
        throw new Error("a promise reached the sync runner: this operation must run with runSyncYielding");
      return value;
    }
    case "readsTextWhole":
      return readsTextWholeOn(env.driver, env.conn);
    case "remember": {
      let facts = remembered.get(env.conn);
      if (!facts) {
        facts = new Map();
        remembered.set(env.conn, facts);
      }
      if (!facts.has(effect.key)) facts.set(effect.key, runSync(env, effect.body()));
      return facts.get(effect.key);
    }
  }
}

/** Run `body` as a transaction of the connection: the outermost one, or inside the open one (a
 * read joins it, a write runs in a savepoint). */
function transact(env: SyncEnvironment, mode: "write" | "read", body: () => Op<unknown>): unknown {
  const { transactions } = env;
  if (!transactions.active) return transactions.run(mode, () => runSync(env, body()));
  if (mode === "read") return transactions.nest(() => runSync(env, body()));
  return transactions.nest(() => runSync(env, savepoint(transactions.depth, body)));
}

/** `remember` results, per connection. */
const remembered = new WeakMap<object, Map<string, unknown>>();
