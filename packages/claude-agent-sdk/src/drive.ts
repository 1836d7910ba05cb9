/**
 * One body for both kinds of store. A synchronous store (Node, Bun, Deno) answers each call at
 * once and its `transaction(fn)` cannot stay open across an await; an asynchronous one (libSQL
 * server) answers with promises and its transaction body is async. So each operation is a
 * generator that yields every store call's result and gets it back: run straight through on a
 * synchronous store (a whole transaction inside one `transaction(fn)` call), awaited step by
 * step on an asynchronous one. (The same scheme as @sessiondb/openai-agents' driver.)
 */
import { AsyncStore, InvalidInputError, type Store } from "@sessiondb/core";

/** Either kind of store. */
export type AnyStore = Store | AsyncStore;

/** An operation: yields store results (values or promises), returns its answer. */
export type Operation<T> = Generator<unknown, T, unknown>;

/** Runs `body` against the store, each call on its own. */
export function run<T>(store: AnyStore, body: (store: AnyStore) => Operation<T>): Promise<T> {
  return store instanceof AsyncStore ? drain(body(store)) : settle(() => straight(body(store)));
}

/** Runs `body` as one transaction: all of it is stored, or none of it. */
export function atomically<T>(store: AnyStore, body: (store: AnyStore) => Operation<T>): Promise<T> {
  if (store instanceof AsyncStore) return store.transaction((s) => drain(body(s)));
  return settle(() => store.transaction((s) => straight(body(s))));
}

function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}

function straight<T>(op: Operation<T>): T {
  let step = op.next();
  while (!step.done) {
    // A promise here is an asynchronous store of another copy of @sessiondb/core: its answers
    // would be taken for rows.
    if (typeof (step.value as { then?: unknown } | null)?.then === "function")
      throw new InvalidInputError(
        "store",
        "answered with a promise but is no AsyncStore of the @sessiondb/core this package uses (two copies are installed: dedupe them)",
      );
    step = op.next(step.value);
  }
  return step.value;
}

async function drain<T>(op: Operation<T>): Promise<T> {
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
