/**
 * The vocabulary of the sans-I/O core. An operation is a generator that yields effects (a
 * statement to run, a body to run as one transaction, the clock, a fact about the connection)
 * and receives their results; it never touches a connection itself. A runner performs the
 * effects: run-sync.ts on an in-process SQLite connection (the embedded bindings), run-async.ts
 * on an asynchronous executor (server engines). A failed effect is thrown into the generator at
 * the `yield`, so operations keep ordinary try/catch. Each helper below is `yield*`-ed for its
 * typed result: `const row = yield* get("SELECT …", id)`.
 *
 * A transaction's body is an arrow function calling a module-level generator function
 * (`write(() => insertRows(id, rows))`), never a `function*` expression: V8 gives every
 * generator function object created at run time a prototype object of its own, and measured
 * that way one small read cost 4 µs more than its statements.
 */
import type { Row, RunResult, SqlValue } from "../driver.js";
import type { WriteOptions } from "../store/context.js";

export type Effect =
  | {
      readonly kind: "get" | "all" | "run";
      readonly sql: string;
      readonly params: SqlValue[];
      /** SQL whose text varies with its input (search): prepared for this call, not cached. */
      readonly fresh?: boolean;
    }
  | { readonly kind: "exec"; readonly sql: string }
  | {
      /** `write`: one write transaction with write patience, the whole body run again on
       * BUSY/LOCKED (so the body is a factory: each attempt gets a fresh generator); `read`: a
       * read with read patience, no transaction; `snapshot`: one read transaction. */
      readonly kind: "write" | "read" | "snapshot";
      readonly body: () => Op<unknown>;
      readonly options?: WriteOptions;
    }
  | { readonly kind: "now" }
  | {
      /** Run `body` once per connection and answer its result from then on (facts about the
       * engine that need a probe, like whether its trigram tokenizer reads past a NUL). */
      readonly kind: "remember";
      readonly key: string;
      readonly body: () => Op<unknown>;
    }
  | { readonly kind: "readsTextWhole" };

/** An operation returning `T`. */
export type Op<T> = Generator<Effect, T, unknown>;

/** The first row of `sql`, or undefined. */
export function* get(sql: string, ...params: SqlValue[]): Op<Row | undefined> {
  return (yield { kind: "get", sql, params }) as Row | undefined;
}

/** Every row of `sql`. */
export function* all(sql: string, ...params: SqlValue[]): Op<Row[]> {
  return (yield { kind: "all", sql, params }) as Row[];
}

/** Every row of `sql`, prepared for this call only (see `fresh`). */
export function* allFresh(sql: string, params: SqlValue[]): Op<Row[]> {
  return (yield { kind: "all", sql, params, fresh: true }) as Row[];
}

/** Run a data statement. */
export function* run(sql: string, ...params: SqlValue[]): Op<RunResult> {
  return (yield { kind: "run", sql, params }) as RunResult;
}

/** Run one statement without parameters or results (DDL, pragmas): one statement, since an
 * async engine executes statements one at a time. */
export function* exec(sql: string): Op<void> {
  yield { kind: "exec", sql };
}

/** Run `body` as one write transaction (see Effect). */
export function* write<T>(body: () => Op<T>, options?: WriteOptions): Op<T> {
  return (yield { kind: "write", body, options }) as T;
}

/** Run `body` as a read with read patience. */
export function* read<T>(body: () => Op<T>): Op<T> {
  return (yield { kind: "read", body }) as T;
}

/** Run `body` in one read transaction: every statement sees the same snapshot. */
export function* snapshot<T>(body: () => Op<T>): Op<T> {
  return (yield { kind: "snapshot", body }) as T;
}

/** Wall clock in ms (the store's injectable clock). */
export function* now(): Op<number> {
  return (yield { kind: "now" }) as number;
}

/** `body`'s result, computed once per connection. */
export function* remember<T>(key: string, body: () => Op<T>): Op<T> {
  return (yield { kind: "remember", key, body }) as T;
}

/** Whether the connection reads TEXT past a NUL (store/rows.ts picks its select lists by it). */
export function* readsTextWhole(): Op<boolean> {
  return (yield { kind: "readsTextWhole" }) as boolean;
}
