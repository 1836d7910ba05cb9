/**
 * Test-only: a minimal StoreContext over a real driver, with the Store's tables generated from
 * the schema definition, so the FTS module is tested on real SQLite files without the Store.
 */
import { createRequire } from "node:module";
import { garbage } from "@sessiondb/conformance";
import { DEFAULT_BACKFILL_CHUNK_IDS, STATEMENT_BUSY_TIMEOUT_MS } from "../../src/constants.js";
import type { SqliteConnection, SqliteDriver, SqlValue } from "../../src/driver.js";
import type { Op } from "../../src/engine/effects.js";
import { runSync, runSyncYielding } from "../../src/engine/run-sync.js";
import { SqliteError } from "../../src/errors.js";
import { timedBackfillStep } from "../../src/fts/backfill.js";
import type { BackfillProgress } from "../../src/fts/backfill-loop.js";
import { failOpen } from "../../src/fts/corruption.js";
import { type InstallOutcome, installFts } from "../../src/fts/install.js";
import { ftsIntegrityProblems } from "../../src/fts/integrity.js";
import { type RebuildResult, rebuild, repairAtOpen, retryRecovery } from "../../src/fts/recovery.js";
import { runSearch } from "../../src/fts/search.js";
import type { SearchOptions, SearchResult } from "../../src/fts/search-options.js";
import { type FtsStatus, ftsStatus } from "../../src/fts/status.js";
import { backfillPending, mergeIndexes, optimizeIndexes, startBackfill } from "../../src/fts/upkeep.js";
import { withPatience } from "../../src/locks/patience.js";
import type { RecoveryBackoffOptions } from "../../src/locks/recovery-backoff.js";
import type { IntegrityProblem } from "../../src/model/types.js";
import { read } from "../../src/policy/calls.js";
import { createPolicy } from "../../src/policy/state.js";
import { schemaDdl } from "../../src/schema/ddl.js";
import { resultCodeFromMessage } from "../../src/sqlite-codes.js";
import { createContext, type StoreContext } from "../../src/store/context.js";
import { backfillFts } from "../../src/store/operations.js";
import { testDriver } from "./driver.js";

/** A test store: the context plus helpers. */
export interface TestStore {
  ctx: StoreContext;
  conn: SqliteConnection;
  /** Insert a message (session created on demand); returns its id. */
  add(message: {
    session?: string;
    source?: string;
    role?: string;
    content?: string | null;
    toolName?: string | null;
    toolCalls?: string | null;
    timestamp?: number;
  }): number;
  /** Run `fn` in one write transaction (with patience), as the Store's raw writes would. */
  write<T>(fn: () => T): T;
  /** One row as an object. */
  get(sql: string, ...params: SqlValue[]): Record<string, SqlValue> | undefined;
  close(): void;
}

/** Open `path` (schema created when writable), as the Store would. */
export function openTestStore(
  path: string,
  options: {
    driver?: SqliteDriver;
    readOnly?: boolean;
    now?: () => number;
    patienceMs?: number;
    recovery?: { baseMs?: number };
    admissionTimeoutMs?: number;
  } = {},
): TestStore {
  const driver = options.driver ?? testDriver;
  const readOnly = options.readOnly === true;
  const conn = driver.open(path, { readOnly });
  conn.exec(`PRAGMA busy_timeout = ${STATEMENT_BUSY_TIMEOUT_MS}`);
  if (!readOnly) {
    conn.exec("PRAGMA journal_mode = WAL");
    // The Store's own tables, from the schema definition (the FTS module reads them as they are).
    for (const statement of schemaDdl()) conn.exec(statement);
  }
  const patienceMs = options.patienceMs ?? 5_000;
  const policy = createPolicy(
    {
      readOnly,
      patience: { openMs: patienceMs, writeMs: patienceMs, appendMs: patienceMs },
      admissionTimeoutMs: options.admissionTimeoutMs ?? 120_000,
      repairFtsOnOpen: true,
      recoveryBackoff: options.recovery,
      failOpen,
      groupsWrites: false,
    },
    {},
  );
  const ctx = createContext({ conn, driver, path, host: undefined, policy, now: options.now ?? Date.now });
  const statement = (sql: string) => ctx.statement(sql);
  const write = <T>(fn: () => T): T =>
    withPatience(() => ctx.transactions.run("write", fn), { budgetMs: patienceMs, jitter: "write" });
  let clock = 1_700_000_000;
  return {
    ctx,
    conn,
    add(m) {
      const session = m.session ?? "s1";
      return withPatience(
        () =>
          ctx.transactions.run("write", () => {
            statement("INSERT OR IGNORE INTO sessions(id, source, started_at) VALUES (?, ?, 0)").run(
              session,
              m.source ?? "cli",
            );
            return statement(
              "INSERT INTO messages(session_id, role, content, tool_name, tool_calls, timestamp) VALUES (?, ?, ?, ?, ?, ?)",
            ).run(
              session,
              m.role ?? "user",
              m.content ?? null,
              m.toolName ?? null,
              m.toolCalls ?? null,
              m.timestamp ?? clock++,
            ).lastInsertRowid;
          }),
        { budgetMs: patienceMs, jitter: "write" },
      );
    },
    write,
    get: (sql, ...params) => conn.prepare(sql).get(...params),
    close: () => conn.close(),
  };
}

/** Scribble over FTS5 shadow-table blocks with garbage, as real damage would (a separate
 * connection of the same SQLite build with defensive mode off: shadow tables are protected).
 * The garbage is seeded by each block's id, so a run is repeatable: with SQLite's randomblob()
 * one CI run in many hit garbage that kept FTS5 busy for over 30 s, and nobody could say which
 * bytes. */
export function corruptFtsBlocks(path: string, table: string, where: string): void {
  const Database = createRequire(import.meta.url)("better-sqlite3") as typeof import("better-sqlite3");
  const db = new Database(path);
  try {
    db.unsafeMode(true);
    const blocks = db
      .prepare(`SELECT id, length(block) AS n FROM ${table}_data WHERE ${where}`)
      .all() as Array<{
      id: number;
      n: number;
    }>;
    const write = db.prepare(`UPDATE ${table}_data SET block = ? WHERE id = ?`);
    // Block ids start at 1: no seed of 0, which would give zeros.
    for (const { id, n } of blocks) write.run(garbage(n, id), id);
  } finally {
    db.close();
  }
}

/**
 * A fault-injecting wrapper around a real driver, for faults that cannot be produced for real on
 * this SQLite build (a missing tokenizer or module, a binding that reports only messages).
 * `reject(sql)` returns the error to throw instead of running `sql`; `mapError` rewrites errors
 * the real driver threw; `seen` records every SQL text run.
 */
export function faultyDriver(
  base: SqliteDriver,
  options: {
    reject?: (sql: string) => SqliteError | undefined;
    mapError?: (error: unknown) => unknown;
    seen?: string[];
  },
): SqliteDriver {
  const guard = <T>(sql: string, fn: () => T): T => {
    options.seen?.push(sql);
    const fault = options.reject?.(sql);
    if (fault) throw fault;
    try {
      return fn();
    } catch (error) {
      throw options.mapError ? options.mapError(error) : error;
    }
  };
  return {
    name: `${base.name}+faults`,
    open(path, flags) {
      const conn = base.open(path, flags);
      return {
        exec: (sql) => guard(sql, () => conn.exec(sql)),
        prepare(sql) {
          const statement = guard(sql, () => conn.prepare(sql));
          return {
            run: (...p) => guard(sql, () => statement.run(...p)),
            get: (...p) => guard(sql, () => statement.get(...p)),
            all: (...p) => guard(sql, () => statement.all(...p)),
          };
        },
        close: () => conn.close(),
      };
    },
  };
}

/** Like Deno's node:sqlite: the same errors, classified from their message text only. */
export function messageOnly(error: unknown): unknown {
  if (!(error instanceof SqliteError)) return error;
  return new SqliteError(resultCodeFromMessage(error.message), error.message, { cause: error });
}

/**
 * The index's operations run on a test store's context by the sync runner, as the Store runs
 * them (tests of the FTS module without the Store).
 */
export class FtsIndex {
  readonly ctx: StoreContext;

  constructor(
    ctx: StoreContext,
    options: { recovery?: RecoveryBackoffOptions; admissionTimeoutMs?: number } = {},
  ) {
    this.ctx = createContext({
      ...ctx,
      policy: createPolicy(
        {
          ...ctx.policy,
          admissionTimeoutMs: options.admissionTimeoutMs ?? ctx.policy.admissionTimeoutMs,
          recoveryBackoff: options.recovery,
        },
        ctx.policy.environment,
      ),
    });
  }

  #run<T>(op: Op<T>): T {
    return runSync(this.ctx, op);
  }

  install(): InstallOutcome {
    return this.#run(installFts());
  }
  repairAtOpen(): void {
    this.#run(repairAtOpen());
  }
  failOpen(error: unknown): boolean {
    return this.#run(failOpen(error));
  }
  search(query: string, options?: SearchOptions): SearchResult {
    return this.#run(runSearch(query, options, this.ctx.policy.readOnly));
  }
  status(): FtsStatus {
    return this.#run(ftsStatus());
  }
  rebuild(options: { timeoutMs?: number } = {}): RebuildResult {
    return this.#run(rebuild(options.timeoutMs));
  }
  retryDeferredRecovery(): boolean {
    return this.#run(retryRecovery());
  }
  startBackfill(): void {
    this.#run(startBackfill());
  }
  backfillPending(): boolean {
    return this.#run(backfillPending());
  }
  backfillStep(options: { chunkIds?: number } = {}): boolean {
    return this.#run(timedBackfillStep(options.chunkIds ?? DEFAULT_BACKFILL_CHUNK_IDS, this.ctx.policy.steps))
      .remains;
  }
  backfill(
    options: { onProgress?: (p: BackfillProgress) => void; signal?: AbortSignal; chunkIds?: number } = {},
  ): Promise<void> {
    const { chunkIds, ...rest } = options;
    return runSyncYielding(this.ctx, backfillFts({ ...rest, chunkRows: chunkIds }));
  }
  optimize(): void {
    this.#run(optimizeIndexes());
  }
  merge(pages = 16): void {
    this.#run(mergeIndexes(pages));
  }
  integrityProblems(): IntegrityProblem[] {
    return this.#run(read(ftsIntegrityProblems));
  }
}
