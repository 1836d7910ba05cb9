/**
 * Instrumentation for the cost tests: a real store behind an object that forwards the calls a
 * binding makes and counts the rows each read returned and the rows each write touched, inside
 * transactions too (the transaction's own store is wrapped the same way).
 */
import type { Message } from "@sessiondb/core";
import type { AnyStore } from "../../src/index.js";

export interface Counts {
  reads: number;
  rowsRead: number;
  appended: number;
  updated: number;
}

export function countingStore(store: AnyStore): { store: AnyStore; counts: Counts } {
  const counts: Counts = { reads: 0, rowsRead: 0, appended: 0, updated: 0 };
  const after = <T>(value: T | Promise<T>, see: (value: T) => void): T | Promise<T> => {
    if (!(value instanceof Promise)) {
      see(value);
      return value;
    }
    return value.then((v) => {
      see(v);
      return v;
    });
  };
  const wrap = (real: AnyStore): AnyStore => {
    const s = real as unknown as Record<string, (...args: unknown[]) => unknown>;
    const forward =
      (name: string) =>
      (...args: unknown[]) =>
        s[name]?.apply(real, args);
    // On the real store's prototype, so the binding still tells a sync store from an async one
    // (`instanceof AsyncStore`); every call it makes is forwarded to the real store.
    return Object.assign(Object.create(Object.getPrototypeOf(real)), {
      ...Object.fromEntries(
        ["createSession", "getSession", "recordUsage", "getUsage"].map((n) => [n, forward(n)]),
      ),
      getMessages: (...args: unknown[]) =>
        after(s.getMessages?.apply(real, args) as Message[], (rows) => {
          counts.reads++;
          counts.rowsRead += rows.length;
        }),
      appendMessages: (id: string, rows: unknown[]) =>
        after(s.appendMessages?.apply(real, [id, rows]) as number[], () => {
          counts.appended += rows.length;
        }),
      updateMessage: (...args: unknown[]) => {
        counts.updated++;
        return s.updateMessage?.apply(real, args);
      },
      transaction: (fn: (scoped: AnyStore) => unknown) =>
        (real.transaction as (fn: (scoped: AnyStore) => unknown) => unknown).call(real, (scoped: AnyStore) =>
          fn(wrap(scoped)),
        ),
    }) as AnyStore;
  };
  return { store: wrap(store), counts };
}
