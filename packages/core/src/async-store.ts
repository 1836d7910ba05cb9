/**
 * The async Store: the same operations table as the sync `Store` (store/operations.ts), run by
 * the async runner on an `AsyncExecutor` — a server engine's client. Every method returns a
 * promise. What only an embedded store on a local file does (journal policy, checkpoints, file
 * modes, the admission lock file, backups to a file) is the engine's: the server owns its files,
 * and the FTS admission is the engine's `admission`.
 */

import { ADMISSION_TIMEOUT_MS } from "./constants.js";
import { get, type Op } from "./engine/effects.js";
import {
  type AsyncAdmission,
  type AsyncEnvironment,
  type AsyncExecutor,
  type AsyncScope,
  runAsync,
} from "./engine/run-async.js";
import { InvalidInputError } from "./errors.js";
import { repairAtOpen } from "./fts/recovery.js";
import type { SqliteJournalMode } from "./journal.js";
import {
  type DeleteSessionsOptions,
  type DeleteSessionsResult,
  deleteSessions,
} from "./maintenance/delete-sessions.js";
import {
  type ImportSessionInput,
  type ImportSessionsOptions,
  type ImportSessionsResult,
  importSessions,
} from "./maintenance/import-sessions.js";
import { type VacuumOptions, type VacuumResult, vacuum } from "./maintenance/vacuum.js";
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
import { checkGuard, createPolicy } from "./store/policy.js";
import type { StoreOptions } from "./store/types.js";
import * as valid from "./store/validate.js";

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
  admission?: AsyncAdmission;
}

/** Open (creating or upgrading when writable) the store the executor reaches. */
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
  const env: AsyncEnvironment = {
    executor,
    policy: createPolicy(
      { ...settings, admissionTimeoutMs: settings.admissionTimeoutMs ?? ADMISSION_TIMEOUT_MS },
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

/** A sessiondb store over an asynchronous engine. Its methods are the operations table's, each
 * returning a promise (`AsyncMethods`). */
export interface AsyncStore extends AsyncMethods<StoreOperations> {}

/** A sessiondb store over an asynchronous engine (`createAsyncStore`). */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface declares the operations table's methods, which the static block installs on the prototype
export class AsyncStore {
  static {
    installOperations(AsyncStore.prototype, (store, op) => runAsync(store.#env, op, store.#scope));
  }

  /** True when opened read-only. */
  readonly readOnly: boolean;
  /** The journal mode the engine reports (`PRAGMA journal_mode`) at open. */
  readonly journalMode: SqliteJournalMode;
  /** Version of the SQLite the engine runs. */
  readonly sqliteVersion: string;
  /** Schema reconcile problems from this open; non-empty means the store is behind this build. */
  readonly schemaWarnings: readonly string[];

  readonly #env: AsyncEnvironment;
  /** The open transaction this store is scoped to (inside `transaction(fn)`), if any. */
  readonly #scope: AsyncScope | undefined;

  /** @internal Use `createAsyncStore`. */
  constructor(
    env: AsyncEnvironment,
    scope: AsyncScope | undefined,
    facts: Pick<AsyncStore, "readOnly" | "journalMode" | "sqliteVersion" | "schemaWarnings">,
  ) {
    this.#env = env;
    this.#scope = scope;
    this.readOnly = facts.readOnly;
    this.journalMode = facts.journalMode;
    this.sqliteVersion = facts.sqliteVersion;
    this.schemaWarnings = facts.schemaWarnings;
  }

  #run<T>(op: Op<T>): Promise<T> {
    return runAsync(this.#env, op, this.#scope);
  }

  /**
   * Run `fn` as one atomic unit: `fn` gets a store scoped to one write transaction (a read
   * transaction on a read-only store) and awaits its calls on it; the transaction commits when
   * `fn`'s promise resolves and rolls back entirely when it rejects. The same patience and retry
   * as a single write (the whole of `fn` runs again when the lock stays busy), fail-open, and the
   * same refusals inside (index maintenance, `close`). Each call inside is atomic on its own (a
   * savepoint); a nested `transaction` joins the outer one. Calls on the outer store from inside
   * `fn` are not part of it (and wait for it on an engine with one connection).
   */
  transaction<T>(fn: (store: AsyncStore) => T | Promise<T>): Promise<T> {
    let body: (store: AsyncStore) => T | Promise<T>;
    try {
      body = valid.callback<(store: AsyncStore) => T | Promise<T>>(fn, "transaction.fn");
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#run(
      transactionOp((scope) => body(new AsyncStore(this.#env, scope as AsyncScope, this))),
    ) as Promise<T>;
  }

  /** Run the backfill to completion, yielding between chunks. */
  backfillFts(options?: BackfillFtsOptions | null): Promise<void> {
    return this.#run(backfillFts(options));
  }

  /** Delete many sessions, each whole or not at all, in paced steps that let other writers in
   * between (maintenance/delete-sessions.ts). */
  deleteSessions(
    ids: readonly string[],
    options?: DeleteSessionsOptions | null,
  ): Promise<DeleteSessionsResult> {
    return this.#run(deleteSessions(ids, options));
  }

  /** Write many whole sessions (an import) in paced steps that let other writers in between;
   * each session is written whole or refused alone (maintenance/import-sessions.ts). */
  importSessions(
    items: Iterable<ImportSessionInput> | AsyncIterable<ImportSessionInput>,
    options?: ImportSessionsOptions | null,
  ): Promise<ImportSessionsResult> {
    return this.#run(importSessions(items, options));
  }

  /** Give the space of deleted rows back in paced steps (maintenance/vacuum.ts). */
  vacuum(options?: VacuumOptions | null): Promise<VacuumResult> {
    return this.#run(vacuum(options));
  }

  /** Close the store and the executor. Idempotent. */
  async close(): Promise<void> {
    const state = this.#env.policy;
    if (state.closed) return;
    checkGuard(state, "open", this.#scope !== undefined, "close");
    state.closed = true;
    await this.#env.executor.close?.();
  }
}
