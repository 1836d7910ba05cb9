/**
 * The calls on an async store's transaction (async-store.ts): the order they run in, and which
 * transaction body a call comes from.
 *
 * A transaction's statements share one connection, and each call on it is atomic by way of a
 * savepoint: two calls interleaving their statements would release or roll back each other's
 * savepoints, and a call that "succeeded" could be undone by another's failure. So the calls on
 * one transaction's store run one at a time, in call order, whether the body awaits each one or
 * starts several at once (`Promise.all`).
 *
 * A call on the store itself (or on an outer transaction's store) from inside a transaction body
 * joins the transaction, as it does on a sync store, whose body gets the store itself. Made
 * outside it, such a call would not be part of the transaction, and on an engine with one
 * connection it would wait for the transaction to end — which waits for the body, which waits
 * for the call. Where the runtime has `AsyncLocalStorage` (Node, Bun and Deno do) the body runs
 * in a context that tells which transaction a call comes from; without it, such a call is made
 * outside, with that wait.
 */
import { StoreClosedError } from "../errors.js";

/** The calls of one transaction's store, one at a time in call order. */
export class CallQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #ended = false;

  /** True once the transaction ended: calls are refused. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Run `call` after every call queued before it has settled. */
  run<T>(call: () => Promise<T>): Promise<T> {
    if (this.#ended) return Promise.reject(transactionEnded());
    const result = this.#tail.then(() => (this.#ended ? Promise.reject(transactionEnded()) : call()));
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** The body succeeded: let every call it started finish (they are part of the transaction, even
   * those it did not await), then refuse new ones. */
  async drain(): Promise<void> {
    let tail: Promise<unknown>;
    do {
      tail = this.#tail;
      await tail;
    } while (tail !== this.#tail);
    this.#ended = true;
  }

  /** The body failed: refuse the calls not started yet, and wait for the one running (the
   * rollback must not race its statements). */
  async abandon(): Promise<void> {
    this.#ended = true;
    await this.#tail;
  }
}

function transactionEnded(): StoreClosedError {
  return new StoreClosedError(
    "The transaction this store belongs to has ended; make calls on it only inside its transaction(fn), and after it on the store that ran it.",
  );
}

/** The part of Node's `AsyncLocalStorage` used here (Bun and Deno have it too). */
interface ContextStorage<T> {
  run<R>(value: T, fn: () => R): R;
  getStore(): T | undefined;
}

/** Which transaction body the current code runs in, where the runtime can tell. */
export class BodyContext<T> {
  #storage: ContextStorage<T> | null | undefined;

  /** Run `fn` as the body of `store`'s transaction. */
  run<R>(store: T, fn: () => R): R {
    const storage = this.#load();
    return storage ? storage.run(store, fn) : fn();
  }

  /** The store whose transaction body the current code runs in (or was started from). */
  current(): T | undefined {
    // Nothing was ever run in a body: no storage to ask (and none created just to ask).
    return this.#storage ? this.#storage.getStore() : undefined;
  }

  /** Created on first use: `AsyncLocalStorage` costs every promise a little once it is in use,
   * so a process that never opens a transaction on an async store does not pay for it. */
  #load(): ContextStorage<T> | null {
    if (this.#storage === undefined) {
      const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
      const hooks = process?.getBuiltinModule?.("node:async_hooks") as
        | { AsyncLocalStorage?: new () => ContextStorage<T> }
        | undefined;
      this.#storage = hooks?.AsyncLocalStorage ? new hooks.AsyncLocalStorage() : null;
    }
    return this.#storage;
  }
}
