/**
 * One body for both kinds of store, for the bindings and the importer. A synchronous store
 * (Node, Bun, Deno) answers each call at once and its `transaction(fn)` cannot stay open across
 * an await; an asynchronous one (libSQL server) answers with promises and its transaction body is
 * async. So an operation is written once, as a generator that yields every store call's result
 * and gets it back: driven straight through on a synchronous store (a whole transaction inside
 * one `transaction(fn)` call), awaited step by step on an asynchronous one.
 */
import { AsyncStore, InvalidInputError, type Store } from "@sessiondb/core";

/** Either kind of store. */
export type AnyStore = Store | AsyncStore;

/** An operation: yields store results (values or promises), returns its answer. */
export type StoreOperation<T> = Generator<unknown, T, unknown>;

/** `options.store` when it is a store, else the InvalidInputError a binding's constructor gives. */
export function storeOption(options: { store?: unknown } | null | undefined): AnyStore {
  const store = typeof options === "object" && options !== null ? options.store : undefined;
  if (store === null || typeof store !== "object")
    throw new InvalidInputError("options.store", "must be a sessiondb store");
  return store as AnyStore;
}

/** What a body's answer is on `S`: the value itself on a sync Store, a promise on an AsyncStore. */
export type StoreResult<S extends AnyStore, T> = S extends AsyncStore ? Promise<T> : T;

/** Runs `body` against the store, each call on its own: on a sync Store it runs to its end
 * inside this call and gives its answer (for an API that is synchronous there, as the AI SDK
 * helpers are), on an AsyncStore a promise of it. */
export function perform<S extends AnyStore, T>(
  store: S,
  body: (store: AnyStore) => StoreOperation<T>,
): StoreResult<S, T> {
  return (store instanceof AsyncStore ? drain(body(store)) : straight(body(store))) as StoreResult<S, T>;
}

/** `perform` as one transaction: all of it is stored, or none of it. */
export function performAtomically<S extends AnyStore, T>(
  store: S,
  body: (store: AnyStore) => StoreOperation<T>,
): StoreResult<S, T> {
  const answer =
    store instanceof AsyncStore
      ? store.transaction((s) => drain(body(s)))
      : (store as Store).transaction((s) => straight(body(s)));
  return answer as StoreResult<S, T>;
}

/** Runs `body` against the store, each call on its own; always a promise. */
export function runOn<T>(store: AnyStore, body: (store: AnyStore) => StoreOperation<T>): Promise<T> {
  return settled(() => perform(store, body));
}

/** Runs `body` as one transaction: all of it is stored, or none of it; always a promise. */
export function atomically<T>(store: AnyStore, body: (store: AnyStore) => StoreOperation<T>): Promise<T> {
  return settled(() => performAtomically(store, body));
}

/** A synchronous result or throw as a promise (the frameworks' store APIs are asynchronous). */
function settled<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}

function straight<T>(op: StoreOperation<T>): T {
  let step = op.next();
  while (!step.done) {
    // An asynchronous store this core's AsyncStore class does not know: a second copy of
    // @sessiondb/core is installed, and its answers would be taken for rows.
    if (typeof (step.value as { then?: unknown } | null)?.then === "function")
      throw new InvalidInputError(
        "options.store",
        "answered with a promise but is no AsyncStore of the @sessiondb/core this package uses (two copies are installed: dedupe them)",
      );
    step = op.next(step.value);
  }
  return step.value;
}

async function drain<T>(op: StoreOperation<T>): Promise<T> {
  let step = op.next();
  while (!step.done) {
    let value: unknown;
    try {
      value = await step.value;
    } catch (error) {
      step = op.throw(error);
      continue;
    }
    step = op.next(value);
  }
  return step.value;
}
