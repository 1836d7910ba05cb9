/**
 * The sync runner: performs an operation's effects on the store's in-process connection, through
 * its context (the prepared-statement cache, nesting transactions, the store's policy). One loop,
 * no promises: an operation costs what its statements cost plus a few generator steps.
 */
import { readsTextWholeOn } from "../binding-facts.js";
import { readJournalMode } from "../journal.js";
import { acquireAdmission } from "../locks/admission.js";
import { holdLocally } from "../locks/local-holds.js";
import { sleepAsync, sleepSync, withPatience } from "../locks/patience.js";
import {
  checkGuard,
  classifyFailure,
  guardedWrite,
  isCorruption,
  readPatience,
  tooBigInput,
} from "../policy/state.js";
import type { StoreContext } from "../store/context.js";
import type { AdmissionOutcome, Effect, Op, WriteOptions } from "./effects.js";
import { savepoint } from "./savepoint.js";

/** Run `op` to completion; its result or its error. */
export function runSync<T>(ctx: StoreContext, op: Op<T>): T {
  let step = op.next();
  for (;;) {
    if (step.done) return step.value;
    let result: unknown;
    try {
      result = perform(ctx, step.value);
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
 * statements still run synchronously, and a failure rejects.
 */
export async function runSyncYielding<T>(ctx: StoreContext, op: Op<T>): Promise<T> {
  let step = op.next();
  for (;;) {
    if (step.done) return step.value;
    let result: unknown;
    try {
      const effect = step.value;
      if (effect.kind === "pause") result = await sleepAsync(effect.ms);
      else if (effect.kind === "await") result = await effect.fn();
      else result = perform(ctx, effect);
    } catch (error) {
      step = op.throw(error);
      continue;
    }
    step = op.next(result);
  }
}

/** A read with the store's read patience and classification (also for backup's reads). */
export function readSync<T>(ctx: StoreContext, fn: () => T, options?: WriteOptions): T {
  const state = ctx.policy;
  checkGuard(state, "open", false);
  try {
    return withPatience(fn, readPatience(state, state.patience.writeMs, "write"));
  } catch (error) {
    if (options?.ownsCorruption && isCorruption(error)) throw error;
    throw classifyFailure(state, error);
  }
}

function perform(ctx: StoreContext, effect: Effect): unknown {
  switch (effect.kind) {
    case "get":
      return ctx.statement(effect.sql).get(...effect.params);
    case "all":
      if (effect.varying) return ctx.varyingStatement(effect.sql).all(...effect.params);
      return ctx.statement(effect.sql).all(...effect.params);
    case "run":
      return ctx.statement(effect.sql).run(...effect.params);
    case "exec":
      return ctx.conn.exec(effect.sql);
    case "write": {
      checkGuard(ctx.policy, "writable", false);
      // Inside a transaction a write joins it (a savepoint): the outer write's patience, retry
      // and fail-open cover it, and its commit is the outer one's.
      if (ctx.transactions.active) {
        try {
          return transact(ctx, "write", effect.body);
        } catch (error) {
          throw tooBigInput(error, effect.options?.what);
        }
      }
      return runSync(ctx, guardedWrite(effect.body, effect.options));
    }
    case "read":
      return readSync(ctx, () => runSync(ctx, effect.body()));
    case "snapshot":
      return readSync(ctx, () => transact(ctx, "read", effect.body), effect.options);
    case "transaction": {
      const attempt =
        effect.foreignKeys === "off"
          ? () => ctx.transactions.runWithoutForeignKeys(effect.mode, () => runSync(ctx, effect.body()))
          : () => transact(ctx, effect.mode, effect.body);
      if (!effect.patience) return attempt();
      return withPatience(attempt, { heldHere: ctx.policy.environment.heldHere, ...effect.patience });
    }
    case "patient":
      return withPatience(() => runSync(ctx, effect.body()), {
        heldHere: ctx.policy.environment.heldHere,
        ...effect.patience,
        now: ctx.now,
      });
    case "policy":
      return ctx.policy;
    case "guard":
      return checkGuard(ctx.policy, effect.level, ctx.transactions.active, effect.outside);
    case "admitted":
      return admitted(ctx, effect.timeoutMs, effect.body);
    case "external":
      return transactionBody(ctx, effect.fn);
    case "local":
      return ctx.local?.(effect.action);
    case "now":
      return ctx.now();
    case "pause":
      if (effect.ms > 0) sleepSync(effect.ms);
      return undefined;
    case "await": {
      const value = effect.fn();
      if (typeof (value as { then?: unknown } | null)?.then === "function")
        throw new Error("a promise reached the sync runner: this operation must run with runSyncYielding");
      return value;
    }
    case "readsTextWhole":
      return readsTextWholeOn(ctx.driver, ctx.conn);
    case "remember": {
      let facts = remembered.get(ctx.conn);
      if (!facts) {
        facts = new Map();
        remembered.set(ctx.conn, facts);
      }
      if (!facts.has(effect.key)) facts.set(effect.key, runSync(ctx, effect.body()));
      return facts.get(effect.key);
    }
  }
}

/** Run `body` as a transaction of the connection: the outermost one, or inside the open one (a
 * read joins it, a write runs in a savepoint). */
function transact(ctx: StoreContext, mode: "write" | "read", body: () => Op<unknown>): unknown {
  const { transactions } = ctx;
  if (!transactions.active) return transactions.run(mode, () => runSync(ctx, body()));
  if (mode === "read") return transactions.nest(() => runSync(ctx, body()));
  return transactions.nest(() => runSync(ctx, savepoint(transactions.depth, body)));
}

/** A `store.transaction` function, run with its lock recorded as held by this thread when that
 * lock keeps other connections from writing (locks/local-holds.ts): a write transaction's always,
 * a read-only store's only on a rollback-journal file (a WAL reader blocks no writer). */
function transactionBody(ctx: StoreContext, fn: (scope: unknown) => unknown): unknown {
  if (!ctx.transactions.active || (ctx.policy.readOnly && readJournalMode(ctx.conn) === "wal")) {
    return fn(undefined);
  }
  const release = holdLocally(ctx.path, ctx.host, "a store.transaction() function that is still running");
  try {
    return fn(undefined);
  } finally {
    release();
  }
}

/** The admission of an embedded store: the lock file beside it (locks/admission.ts). */
function admitted(ctx: StoreContext, timeoutMs: number, body: () => Op<unknown>): AdmissionOutcome<unknown> {
  const admission = acquireAdmission(ctx.driver, ctx.path, { timeoutMs, host: ctx.host });
  if (!admission.admitted) {
    const { reason, message, code } = admission;
    return code === undefined
      ? { admitted: false, reason, message }
      : { admitted: false, reason, message, code };
  }
  const releaseHold = holdLocally(
    ctx.path,
    ctx.host,
    "an FTS rebuild of this file that is still running",
    "admission",
  );
  try {
    return { admitted: true, value: runSync(ctx, body()) };
  } finally {
    releaseHold();
    admission.release();
  }
}

/** `remember` results, per connection. */
const remembered = new WeakMap<object, Map<string, unknown>>();
