/**
 * The async Store: the same operations table as the sync `Store` (store/operations.ts), run by
 * the async runner on an `AsyncExecutor` — a server engine's client. Every method returns a
 * promise. What only an embedded store on a local file does (journal policy, checkpoints, file
 * modes, the admission lock file, backups to a file) is the engine's: the server owns its files,
 * and the FTS admission is the engine's `admission`.
 */

import { ADMISSION_TIMEOUT_MS } from "./constants.js";
import { get, type Op } from "./engine/effects.js";
import { type AsyncEnvironment, type AsyncScope, runAsync } from "./engine/run-async.js";
import { InvalidInputError } from "./errors.js";
import type { AsyncAdmission, AsyncExecutor } from "./executor.js";
import { failOpen } from "./fts/corruption.js";
import { repairAtOpen } from "./fts/recovery.js";
import { GroupCommit } from "./group-commit.js";
import type { SqliteJournalMode } from "./journal.js";
import { withPatienceAsync } from "./locks/patience.js";
import type { DeleteSessionsOptions, DeleteSessionsResult } from "./maintenance/delete-sessions.js";
import type {
  ImportSessionInput,
  ImportSessionsOptions,
  ImportSessionsResult,
} from "./maintenance/import-sessions.js";
import type { VacuumOptions, VacuumResult } from "./maintenance/vacuum.js";
import type { StoreOptions } from "./model/types.js";
import * as valid from "./model/validate.js";
import { onDemand } from "./on-demand.js";
import { checkGuard, createPolicy, type StorePolicy } from "./policy/state.js";
import { NoStoreThere, noStoreError, type OpenOutcome, openSchema } from "./store/open.js";
import {
  type AsyncMethods,
  type BackfillFtsOptions,
  backfillFts,
  installOperations,
  type StoreOperations,
  transactionOp,
} from "./store/operations.js";
import { asyncSettings } from "./store/options.js";
import { BodyContext, CallQueue } from "./store/transaction-calls.js";

/** Options of `createAsyncStore`: the Store's own (the file options — host, journal mode, WAL
 * safety — belong to the engine and are ignored), and the engine's FTS admission. */
export interface AsyncStoreOptions
  extends Pick<
    StoreOptions,
    "readOnly" | "patience" | "admissionTimeoutMs" | "recoveryBackoff" | "repairFtsOnOpen" | "now"
  > {
  /** One full FTS rebuild at a time across every client (see `AsyncAdmission`). Without one,
   * rebuilds — the one at a new store's first open included — are refused (`blocked:
   * "environment"`) and search answers by LIKE. */
  admission?: AsyncAdmission | null | undefined;
}

/** Open (creating or upgrading when writable) the store the executor reaches. */
/** The runner's environment as the store keeps it: with its policy state typed. */
type StoreEnvironment = AsyncEnvironment & { policy: StorePolicy };

export async function createAsyncStore(
  executor: AsyncExecutor,
  options?: AsyncStoreOptions | null,
): Promise<AsyncStore> {
  const ok =
    typeof executor === "object" &&
    executor !== null &&
    typeof executor.execute === "function" &&
    typeof executor.transaction === "function";
  if (!ok) {
    throw new InvalidInputError(
      "createAsyncStore.executor",
      "expected an AsyncExecutor (an object with execute() and transaction())",
    );
  }
  const settings = asyncSettings(options);
  const env: StoreEnvironment = {
    executor,
    policy: createPolicy(
      {
        ...settings,
        admissionTimeoutMs: settings.admissionTimeoutMs ?? ADMISSION_TIMEOUT_MS,
        failOpen,
        // Concurrent appends commit together (group-commit.ts).
        groupsWrites: true,
      },
      {},
    ),
    now: settings.now,
  };
  if (settings.admission !== undefined) env.admission = settings.admission as AsyncAdmission;
  const sqliteVersion = String((await runAsync(env, get("SELECT sqlite_version() AS v")))?.v ?? "");
  let opened: OpenOutcome;
  try {
    opened = await runAsync(env, openSchema());
  } catch (error) {
    // An engine has no path: the engine's package names the database (a URL) when it knows one.
    throw error instanceof NoStoreThere ? noStoreError("the database the executor reaches", error) : error;
  }
  if (opened.repairPending && settings.repairFtsOnOpen) await runAsync(env, repairAtOpen());
  return new AsyncStore(env, undefined, {
    readOnly: settings.readOnly,
    journalMode: opened.journalMode,
    sqliteVersion,
    schemaWarnings: opened.warnings,
  });
}

/** The least time one attempt to connect is given, even when the open patience is spent or zero:
 * a first answer needs a round trip. */
const CONNECT_ATTEMPT_MIN_MS = 1000;

/**
 * An engine's connection step — reaching its server, before `createAsyncStore` — run with the
 * open patience of `options`, as the open itself is: a BUSY or LOCKED failure (the engine's word
 * for a server not reachable yet) is tried again after the open jitter until the budget
 * (`patience.openMs`) is spent, then rejects with `StoreBusyError` whose cause is the last
 * failure; any other failure rejects at once. Each attempt is handed how long it may wait for an
 * answer (what is left of the budget, at least CONNECT_ATTEMPT_MIN_MS): a server that takes the
 * connection and never answers must not hold the open past its patience. `options` are validated
 * first, as `createAsyncStore` validates them, so bad options fail before anything is sent.
 */
export async function connectWithOpenPatience<T>(
  options: AsyncStoreOptions | null | undefined,
  connect: (answerWithinMs: number) => Promise<T>,
): Promise<T> {
  const settings = asyncSettings(options);
  const deadline = settings.now() + settings.patience.openMs;
  return withPatienceAsync(() => connect(Math.max(CONNECT_ATTEMPT_MIN_MS, deadline - settings.now())), {
    budgetMs: settings.patience.openMs,
    jitter: "open",
    now: settings.now,
  });
}

/** A sessiondb store over an asynchronous engine. Its methods are the operations table's, each
 * returning a promise (`AsyncMethods`). */
export interface AsyncStore extends AsyncMethods<StoreOperations> {}

/** A sessiondb store over an asynchronous engine (`createAsyncStore`). */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface declares the operations table's methods, which the static block installs on the prototype
export class AsyncStore {
  static {
    installOperations(AsyncStore.prototype, (store, op, method) => store.#run(op, method));
  }

  /** True when opened read-only. */
  readonly readOnly: boolean;
  /** The journal mode the engine reports (`PRAGMA journal_mode`) at open. */
  readonly journalMode: SqliteJournalMode;
  /** Version of the SQLite the engine runs. */
  readonly sqliteVersion: string;
  /** Schema reconcile problems from this open; non-empty means the store is behind this build. */
  readonly schemaWarnings: readonly string[];

  readonly #env: StoreEnvironment;
  /** The open transaction this store is scoped to (inside `transaction(fn)`), if any. */
  readonly #scope: AsyncScope | undefined;
  /** A transaction's store: its calls, one at a time. */
  readonly #queue: CallQueue | undefined;
  /** The store outside any transaction: its calls in flight (`close` waits for them). */
  readonly #inFlight = new Set<Promise<unknown>>();
  /** The store outside any transaction: concurrent appends commit together (group-commit.ts). */
  readonly #group: GroupCommit | undefined;
  #closing: Promise<void> | undefined;

  /** @internal Use `createAsyncStore`. */
  constructor(
    env: StoreEnvironment,
    scope: AsyncScope | undefined,
    facts: Pick<AsyncStore, "readOnly" | "journalMode" | "sqliteVersion" | "schemaWarnings">,
  ) {
    this.#env = env;
    this.#scope = scope;
    this.#queue = scope === undefined ? undefined : new CallQueue();
    this.#group = scope === undefined ? new GroupCommit(env) : undefined;
    this.readOnly = facts.readOnly;
    this.journalMode = facts.journalMode;
    this.sqliteVersion = facts.sqliteVersion;
    this.schemaWarnings = facts.schemaWarnings;
  }

  #run<T>(op: Op<T>, method: string): Promise<T> {
    const joined = this.#joinedTransaction();
    if (joined) return joined.#run(op, method);
    if (this.#queue) return this.#queue.run(() => runAsync(this.#env, op, this.#scope));
    const call = runAsync(this.#env, this.#group && GROUPED.has(method) ? this.#group.grouped(op) : op);
    this.#inFlight.add(call);
    const settled = () => this.#inFlight.delete(call);
    call.then(settled, settled);
    return call;
  }

  /** The store of the transaction whose body the current code runs in, when this store is the
   * store itself or an outer transaction's store of the same database: a call on it joins that
   * transaction, as on a sync store (see store/transaction-calls.ts). */
  #joinedTransaction(): AsyncStore | undefined {
    const inside = bodies.current();
    if (inside === undefined || inside.#env !== this.#env || inside.#queue?.ended) return undefined;
    return (this.#scope?.depth ?? 0) < (inside.#scope?.depth ?? 0) ? inside : undefined;
  }

  /**
   * Run `fn` as one atomic unit: `fn` gets a store scoped to one write transaction (a read
   * transaction on a read-only store); the transaction commits when `fn`'s promise resolves and
   * every call made on that store has settled, and rolls back entirely when `fn` rejects. Calls
   * on the scoped store run one at a time in call order, so `fn` may start several at once
   * (`Promise.all`); each is atomic on its own (a savepoint), and a nested `transaction` joins
   * the outer one. A call on the store itself (or an outer transaction's store) from inside `fn`
   * joins the transaction, as it does on a sync store. The same patience as a single
   * write while the transaction waits for the write lock — `fn` starts only once it holds it —
   * and `fn` is never run twice: a transaction the engine loses after `fn` started (a server's
   * transaction timeout, a connection lost before COMMIT) rejects with `SQLITE_ABORT`. The same
   * refusals inside as the sync store (index maintenance, `close`).
   */
  transaction<T>(fn: (store: AsyncStore) => T | Promise<T>): Promise<T> {
    let body: (store: AsyncStore) => T | Promise<T>;
    try {
      body = valid.callback<(store: AsyncStore) => T | Promise<T>>(fn, "transaction.fn");
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#run(
      transactionOp((scope) => this.#body(body, scope as AsyncScope)),
      "transaction",
    ) as Promise<T>;
  }

  /** `fn` on a store scoped to the open transaction `scope`, in its body context. */
  async #body<T>(fn: (store: AsyncStore) => T | Promise<T>, scope: AsyncScope): Promise<T> {
    const tx = new AsyncStore(this.#env, scope, this);
    const queue = tx.#queue as CallQueue;
    let result: T;
    try {
      result = await bodies.run(tx, () => fn(tx));
    } catch (error) {
      await queue.abandon();
      throw error;
    }
    await queue.drain();
    return result;
  }

  /** Run the backfill to completion, yielding between chunks. */
  backfillFts(options?: BackfillFtsOptions | null): Promise<void> {
    return this.#run(backfillFts(options), "backfillFts");
  }

  /** Delete many sessions, each whole or not at all, in paced steps that let other writers in
   * between (store/delete-sessions.ts). */
  deleteSessions(
    ids: readonly string[],
    options?: DeleteSessionsOptions | null,
  ): Promise<DeleteSessionsResult> {
    return this.#run(
      onDemand("deleteSessions", (jobs) => jobs.deleteSessions(ids, options)),
      "deleteSessions",
    );
  }

  /** Write many whole sessions (an import) in paced steps that let other writers in between;
   * each session is written whole or refused alone (store/import-sessions.ts). */
  importSessions(
    items: Iterable<ImportSessionInput> | AsyncIterable<ImportSessionInput>,
    options?: ImportSessionsOptions | null,
  ): Promise<ImportSessionsResult> {
    return this.#run(
      onDemand("importSessions", (jobs) => jobs.importSessions(items, options)),
      "importSessions",
    );
  }

  /** Give the space of deleted rows back in paced steps (maintenance/vacuum.ts). */
  vacuum(options?: VacuumOptions | null): Promise<VacuumResult> {
    return this.#run(
      onDemand("vacuum", (jobs) => jobs.vacuum(options)),
      "vacuum",
    );
  }

  /** Close the store and the executor, once the calls in flight have settled; calls made from
   * now on, and steps of a call in flight not started yet, reject with StoreClosedError.
   * Idempotent: a second close resolves with the first. */
  close(): Promise<void> {
    const state = this.#env.policy;
    const joined = this.#joinedTransaction();
    if (joined) return joined.close();
    try {
      if (this.#closing) return this.#closing;
      if (state.closed) return Promise.resolve();
      checkGuard(state, "open", this.#scope !== undefined, "close");
    } catch (error) {
      return Promise.reject(error);
    }
    state.closed = true;
    this.#closing = this.#closeWhenSettled();
    return this.#closing;
  }

  async #closeWhenSettled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    await this.#env.executor.close?.();
  }
}

/** The methods whose writes may be committed together with other calls' (group-commit.ts). */
const GROUPED = new Set(["appendMessage", "appendMessages"]);

/** The transaction body the current code runs in (see store/transaction-calls.ts). */
const bodies = new BodyContext<AsyncStore>();
