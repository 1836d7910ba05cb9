/**
 * The vocabulary of the sans-I/O core: I/O primitives only. An operation is a generator that
 * yields effects (a statement to run, a body to run as one transaction, the clock, a pause, a
 * fact about the connection) and receives their results; it never touches a connection itself.
 * The Store's policy (guards, patience, classification, fail-open: `write`, `read`, `snapshot`,
 * `guard`, `patient`) is operations built from these (policy/calls.ts), the same generator code
 * for both runners, which therefore know nothing of the store. A runner performs the
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
import type { Row, RunResult, SqliteJournalMode, SqlValue } from "../driver.js";

export type Effect =
  | {
      readonly kind: "get" | "all" | "run";
      readonly sql: string;
      readonly params: SqlValue[];
      /** SQL whose text varies with its input (search): kept among the last few such texts
       * (StoreContext.varyingStatement), not in the cache of fixed statements. */
      readonly varying?: boolean;
      /** Rows only a change to the database can change (no clock, no temporary table, nothing
       * of the call but its parameters): the sync runner answers them again while nothing
       * changed (engine/unchanged-reads.ts); the async runner reads them every time. */
      readonly untilChange?: boolean;
    }
  | { readonly kind: "exec"; readonly sql: string }
  | { readonly kind: "now" }
  /** Let `ms` pass between two steps of a long job, outside any transaction: the sync runner
   * sleeps (its caller waits for the whole job anyway), the async runner yields a macrotask
   * timer, so the host's event loop runs meanwhile. */
  | { readonly kind: "pause"; readonly ms: number }
  /** Call a function of the caller's that may return a promise (the next item of an async
   * iterable), outside any transaction, and answer its value: the async runner and
   * `runSyncYielding` await it; the plain sync runner refuses a promise. */
  | { readonly kind: "await"; readonly fn: () => unknown }
  | {
      /** Run `body` once per connection and answer its result from then on (facts about the
       * engine that need a probe, like whether its trigram tokenizer reads past a NUL). */
      readonly kind: "remember";
      readonly key: string;
      readonly body: () => Op<unknown>;
    }
  | { readonly kind: "readsTextWhole" }
  | {
      /** One transaction of the engine: outside any, a real one (BEGIN IMMEDIATE for `write`);
       * inside one, a `read` joins it and a `write` runs in a savepoint (engine/savepoint.ts), so
       * a body that throws undoes only itself. No patience, no classification: those are the
       * policy's operations around it. */
      readonly kind: "transaction";
      readonly mode: "write" | "read";
      readonly body: () => Op<unknown>;
      /** `"off"`: foreign-key enforcement off for the transaction's length (outermost only). */
      readonly foreignKeys?: "off";
    }
  /** How many transactions deep the operation runs (0: outside any). */
  | { readonly kind: "depth" }
  /** The store's state, opaque to the runner: whatever its environment was given (the Store's
   * policy state, policy/state.ts). */
  | { readonly kind: "state" }
  | {
      /** Run `body` holding the FTS admission (one full rebuild at a time across every
       * connection): the environment answers — a lock file beside an embedded store, the
       * engine's `admission` for an async one. */
      readonly kind: "admitted";
      readonly timeoutMs: number;
      readonly body: () => Op<unknown>;
    }
  | {
      /** Call a caller's function (the body of `store.transaction`) where this operation runs:
       * the sync runner calls it, the async runner awaits it with a store scoped to the open
       * transaction. */
      readonly kind: "external";
      readonly fn: (scope: unknown) => unknown;
    }
  | {
      /** What only an embedded store on a local file does (the journal policy, checkpoints, file
       * modes); an environment without a local file answers undefined. */
      readonly kind: "local";
      readonly action: LocalAction;
    }
  | {
      /** An offer a wrapper around the operation may take (the async store's group commit takes
       * an append's write): the runners answer undefined — not taken, the operation goes on as
       * if it had not asked; a wrapper that takes it answers `{ value }`, the offer's result.
       * Made only where the store said at creation that a wrapper may take it (the policy's
       * `groupsWrites`): the sync store never makes it. */
      readonly kind: "offer";
      readonly offer: unknown;
    };

/** Work on the store's local files, answered by the sync environment (store/local-file.ts). */
export type LocalAction =
  | { readonly name: "checkJournal"; readonly mode: SqliteJournalMode }
  | { readonly name: "applyJournal" }
  | { readonly name: "checkpoint" }
  | { readonly name: "protectFiles" }
  | { readonly name: "incrementalVacuum" };

/** What `admitted` answers. */
export type AdmissionOutcome<T> =
  | { admitted: true; value: T }
  | {
      admitted: false;
      /** "held": another connection holds it; "environment": it cannot be taken at all. */
      reason: "held" | "environment";
      message: string;
      /** The engine's result code when the admission failed on a full disk ("FULL"), etc. */
      code?: string;
    };

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

/** Every row of `sql`, whose text varies with its input (see `varying`). */
export function* allVarying(sql: string, params: SqlValue[]): Op<Row[]> {
  return (yield { kind: "all", sql, params, varying: true }) as Row[];
}

/** Every row of `sql`, read again only after the database changed (see `untilChange`). The
 * same array may come back again: do not change it. */
export function* allUntilChange(sql: string, ...params: SqlValue[]): Op<Row[]> {
  return (yield { kind: "all", sql, params, untilChange: true }) as Row[];
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

/** The `now` effect (one object: asked on every append). */
export const NOW: Effect = { kind: "now" };

/** Wall clock in ms (the store's injectable clock). */
export function* now(): Op<number> {
  return (yield NOW) as number;
}

/** Pause `ms` between two steps of a long job (never inside a transaction). */
export function* pause(ms: number): Op<void> {
  yield { kind: "pause", ms };
}

/** `fn()`'s value, awaited where the runner can wait (see the `await` effect). */
export function* awaited<T>(fn: () => T): Op<Awaited<T>> {
  return (yield { kind: "await", fn }) as Awaited<T>;
}

/** `body`'s result, computed once per connection. */
export function* remember<T>(key: string, body: () => Op<T>): Op<T> {
  return (yield { kind: "remember", key, body }) as T;
}

/** Whether the connection reads TEXT past a NUL (model/rows.ts picks its select lists by it). */
export function* readsTextWhole(): Op<boolean> {
  return (yield { kind: "readsTextWhole" }) as boolean;
}

/** Run `body` as one transaction of the engine (see the `transaction` effect). */
export function* transaction<T>(mode: "write" | "read", body: () => Op<T>): Op<T> {
  return (yield { kind: "transaction", mode, body }) as T;
}

/** The `depth` effect (one object: asked on every write). */
export const DEPTH: Effect = { kind: "depth" };

/** The `state` effect (one object: asked on every read and write). */
export const STATE: Effect = { kind: "state" };

/** Run `body` as one write transaction of the engine with foreign-key enforcement off for its
 * length: a schema change that rebuilds a table (copies rows that may be orphans, drops the old
 * table, which would otherwise cascade its deletes to child rows). Outside any transaction only. */
export function* writeWithoutForeignKeys<T>(body: () => Op<T>): Op<T> {
  return (yield { kind: "transaction", mode: "write", body, foreignKeys: "off" }) as T;
}

/** Run `body` under the FTS admission, waiting up to `timeoutMs` (0: one try). */
export function* admitted<T>(timeoutMs: number, body: () => Op<T>): Op<AdmissionOutcome<T>> {
  return (yield { kind: "admitted", timeoutMs, body }) as AdmissionOutcome<T>;
}

/** Call `fn` where the operation runs (see `external`). */
export function* external<T>(fn: (scope: unknown) => T): Op<Awaited<T>> {
  return (yield { kind: "external", fn }) as Awaited<T>;
}

/** Work on the local file (see `local`): the journal mode after the policy's switch, or
 * undefined without a local file; nothing for the others (`checkJournal` throws
 * `UnsafeSqliteError` when the policy refuses to write a store in `mode`). */
export function local(action: {
  name: "applyJournal";
}): Op<{ mode: SqliteJournalMode; deferred: boolean } | undefined>;
export function local(
  action:
    | { name: "checkJournal"; mode: SqliteJournalMode }
    | { name: "checkpoint" }
    | { name: "protectFiles" },
): Op<undefined>;
/** `incrementalVacuum`: choose incremental auto-vacuum for the file (SQLite takes it only before
 * the first page is written, or for the next VACUUM); true on a local file, undefined where the
 * engine owns its files (a server refuses the pragma). */
export function local(action: { name: "incrementalVacuum" }): Op<true | undefined>;
export function local(action: LocalAction): Op<unknown> {
  return localOp(action);
}

function* localOp(action: LocalAction): Op<unknown> {
  return yield { kind: "local", action };
}
