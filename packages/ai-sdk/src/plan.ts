/**
 * A binding's work written once for both kinds of store: a plan is a generator that yields store
 * calls and receives their results. On a sync Store every result is a value and the plan runs to
 * its end inside the call (so a sync `store.transaction` stays synchronous, as it must); on an
 * AsyncStore the first promise switches the rest to promise continuations.
 */
import type { AsyncStore, Store } from "@sessiondb/core";

/** Any sessiondb store: the embedded one (sync) or a server's (async). */
export type AnyStore = Store | AsyncStore;

/** One store call of a plan. */
export type Call = (store: AnyStore) => unknown;

/** A plan: yields calls, receives each call's (awaited) result. */
export type Plan<T> = Generator<Call, T, unknown>;

/** The store's result type: a value on a sync Store, a promise on an AsyncStore. */
export type Result<S extends AnyStore, T> = S extends AsyncStore ? Promise<T> : T;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/** Runs `plan` on `store`: synchronously while results are values, then by promises. A call
 * that fails is thrown into the plan, which may catch it. */
function drive<T>(store: AnyStore, plan: Plan<T>, step: IteratorResult<Call, T>): T | Promise<T> {
  while (!step.done) {
    let result: unknown;
    try {
      result = step.value(store);
    } catch (error) {
      step = plan.throw(error);
      continue;
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        (value) => drive(store, plan, plan.next(value)),
        (error: unknown) => drive(store, plan, plan.throw(error)),
      );
    }
    step = plan.next(result);
  }
  return step.value;
}

/** Whether `error` says the session does not exist (by its stable code, so a second copy of
 * core's classes in a bundle does not matter). */
export function isSessionNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "SESSION_NOT_FOUND";
}

/** Runs `plan` outside any transaction (reads). */
export function run<T>(store: AnyStore, plan: Plan<T>): T | Promise<T> {
  return drive(store, plan, plan.next());
}

/** Runs `plan` as one `store.transaction`: every call it makes commits together or not at all. */
export function runInTransaction<T>(store: AnyStore, plan: Plan<T>): T | Promise<T> {
  const transaction = store.transaction as (fn: (scoped: AnyStore) => T | Promise<T>) => T | Promise<T>;
  return transaction.call(store, (scoped) => drive(scoped, plan, plan.next()));
}
