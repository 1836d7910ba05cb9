/**
 * The async executor over @libsql/client: what core's async runner needs from an engine —
 * statements, and transactions as the client's interactive transactions (`transaction("write")`
 * takes the write lock at BEGIN IMMEDIATE; sessiondb itself never sends BEGIN or COMMIT, which
 * server protocols handle per stream) — with rows as plain objects and every failure a
 * `SqliteError` (errors.ts).
 *
 * Each statement outside a transaction and each transaction runs on its own server stream, so
 * concurrent callers never see each other's open transactions. Savepoints inside a
 * transaction work (the runner's nested writes).
 */
import type { Client, Config, InValue, ResultSet, Transaction } from "@libsql/client";
import { SqliteError } from "@sessiondb/core";
import {
  type AsyncExecutor,
  displayUrl,
  type ExecuteResult,
  type Row,
  type SqlValue,
} from "@sessiondb/core/driver";
import { type Credentials, credentialsOf } from "./credentials.js";
import { type RequestPhase, toSqliteError } from "./errors.js";

/** Core's AsyncExecutor, with what this package adds for its own use. */
export interface LibsqlExecutor extends AsyncExecutor {
  /** "http", "ws" or "file". */
  readonly protocol: string;
  /** Write transactions of this executor open right now (the lease never queues behind one). */
  readonly writeTransactionsOpen: number;
  /** Close the client (aborts requests in flight). */
  close(): void;
}

export interface LibsqlExecutorOptions {
  /** A token for servers that require one (Turso: `turso db tokens create <db>`). */
  authToken?: string;
  /** Give up on a request after this many ms (default 60 s; 0: never). A timed-out read or
   * uncommitted transaction is retried; a timed-out COMMIT is `LIBSQL_COMMIT_UNKNOWN`. Over
   * HTTP the request is aborted; over a WebSocket the client reconnects, which ends the requests
   * still waiting on the old connection. */
  requestTimeoutMs?: number;
  /** How long the probe may wait for the server's first answer (the open's patience left), on
   * every transport: past it the client is closed and the probe fails as a lost connection, to
   * be tried again while the patience lasts. Default: no bound of its own. */
  answerWithinMs?: number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** file: URLs only: SQLite's busy timeout per statement, as on the embedded stores (the patience
 * loop retries around it). */
const FILE_BUSY_TIMEOUT_MS = 100;

/** An executor on a new client for `url` (`libsql:`, `http(s):`, `ws(s):` or `file:`), after one
 * probe statement: it reaches the server (or rejects with the reason) and finds out whether TEXT
 * comes back whole past a NUL. Every error it rejects with names the server by `displayUrl` and
 * carries no credential, in its message or along its cause chain. */
export async function openLibsqlExecutor(
  url: string,
  options: LibsqlExecutorOptions = {},
): Promise<LibsqlExecutor> {
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const failure = failureMapper(url, credentialsOf(url, options.authToken));
  const connect = await clientFactoryFor(
    url,
    {
      url,
      authToken: options.authToken,
      intMode: "bigint",
      timeout: FILE_BUSY_TIMEOUT_MS,
      ...(timeoutMs > 0 ? { fetch: fetchWithTimeout(timeoutMs) } : {}),
    },
    failure,
  );
  const executor = executorOver(connect, failure, timeoutMs);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const probe = executor.execute("SELECT char(97, 0, 98) AS probe", []);
    const answered =
      options.answerWithinMs === undefined
        ? probe
        : Promise.race([
            probe,
            new Promise<never>((_, reject) => {
              const ms = options.answerWithinMs as number;
              timer = setTimeout(() => reject(noAnswer(displayUrl(url), ms)), ms);
            }),
          ]);
    const { rows } = await answered;
    executor.readsTextWhole = rows[0]?.probe === "a\u0000b";
  } catch (error) {
    executor.close();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return executor;
}

/** The probes that got no answer in time (`noAnswer`). */
const unanswered = new WeakSet<object>();

/** A server that took the connection and did not answer the probe in time: like a lost
 * connection before anything was written, safe to try again. */
function noAnswer(shown: string, ms: number): SqliteError {
  const error = new SqliteError(
    "BUSY",
    `The libSQL server at ${shown} did not answer within ${ms} ms; nothing was written.`,
    { extendedCode: "LIBSQL_CONNECTION_LOST" },
  );
  unanswered.add(error);
  return error;
}

/** Whether `error` is a probe that got no answer in time: the server said nothing, so nothing
 * about it (a refused token) is worth asking again. */
export function isNoAnswer(error: unknown): boolean {
  return typeof error === "object" && error !== null && unanswered.has(error);
}

/** What a failed request becomes: a `SqliteError` (errors.ts) naming the server as shown, with
 * the credentials cut out of it and its causes. */
type FailureMapper = (error: unknown, where: { phase: RequestPhase; sql?: string }) => unknown;

function failureMapper(url: string, credentials: Credentials): FailureMapper {
  const shown = displayUrl(url);
  return (error, where) => credentials.scrubError(toSqliteError(error, { ...where, url: shown }));
}

function executorOver(
  connect: () => Client,
  failure: FailureMapper,
  timeoutMs: number,
): LibsqlExecutor & { readsTextWhole: boolean } {
  let writes = 0;
  let client = connect();
  let closed = false;
  // Over a WebSocket, a request with no answer in time gives up its connection: the client is
  // replaced by a new one, and the old one's requests still in flight end as lost connections.
  // Not the client's own reconnect(): a close() while that waits for the new connection's
  // handshake leaves the new connection open — and the client reopened — once the server answers,
  // which kept a process from exiting after a stalled server came back.
  const bounded = answerWithin(client.protocol, timeoutMs, () => {
    if (closed) return;
    const old = client;
    client = connect();
    old.close();
  });
  const run = async (
    target: Pick<Client, "execute">,
    sql: string,
    params: readonly SqlValue[],
    phase: RequestPhase,
  ): Promise<ExecuteResult> => {
    let result: ResultSet;
    try {
      result = await bounded(target.execute({ sql, args: params as InValue[] }));
    } catch (error) {
      const mapped = failure(error, { phase, sql });
      if (
        mapped instanceof SqliteError &&
        mapped.resultCode === "CORRUPT" &&
        (await ftsIndexCorrupt(client, sql))
      ) {
        throw new SqliteError(
          "CORRUPT_VTAB",
          `${mapped.message} (the FTS5 index's own integrity check fails)`,
          {
            extendedCode: "SQLITE_CORRUPT_VTAB",
            cause: error,
          },
        );
      }
      throw mapped;
    }
    return toExecuteResult(result);
  };
  return {
    readsTextWhole: false,
    protocol: client.protocol,
    get writeTransactionsOpen() {
      return writes;
    },
    execute: (sql, params) => run(client, sql, params, "autocommit"),
    async transaction(mode, fn, options) {
      let tx: Awaited<ReturnType<Client["transaction"]>>;
      const keysOff = mode === "write" && options?.foreignKeys === "off";
      if (mode === "write") writes++;
      try {
        // Foreign keys can only be switched between transactions, on the stream's own connection,
        // and the client begins its transaction with the stream: begin a deferred one, end it,
        // switch, and begin again — deferred, because that BEGIN cannot fail, so the switch never
        // outlives the transaction (a BEGIN IMMEDIATE refused as busy would leave it). The write
        // lock comes with the first write. `endWithoutForeignKeys` switches back.
        tx = await bounded(client.transaction(keysOff ? "deferred" : mode));
        if (keysOff) await bounded(tx.executeMultiple("COMMIT; PRAGMA foreign_keys = OFF; BEGIN DEFERRED"));
      } catch (error) {
        if (mode === "write") writes--;
        throw failure(error, { phase: "in-transaction" });
      }
      try {
        const result = await fn({ execute: (sql, params) => run(tx, sql, params, "in-transaction") });
        try {
          if (keysOff) await bounded(endWithoutForeignKeys(tx, "COMMIT"));
          await bounded(tx.commit());
        } catch (error) {
          throw failure(error, { phase: "commit" });
        }
        return result;
      } catch (error) {
        // A rollback the server cannot receive is done by the server itself: it rolls back a
        // transaction whose stream is closed or expires.
        if (keysOff) await bounded(endWithoutForeignKeys(tx, "ROLLBACK")).catch(() => undefined);
        await bounded(tx.rollback()).catch(() => undefined);
        throw error;
      } finally {
        if (mode === "write") writes--;
        tx.close();
      }
    },
    close: () => {
      closed = true;
      client.close();
    },
  };
}

/**
 * End a transaction begun with foreign keys off (`end`: COMMIT or ROLLBACK) and switch them back
 * on, on the same connection, in one sequence — the client lends a `file:` connection back to its
 * pool as soon as no transaction is open on it — leaving an empty deferred transaction for the
 * client's own `commit()`/`rollback()` to end, so its bookkeeping matches the connection. A failed
 * COMMIT rejects (the transaction is still open: the caller rolls back). A ROLLBACK that finds no
 * transaction (the engine ended it after an error such as a full disk) switches them back on
 * alone; a `file:` client no longer lends that connection out then, but such an error fails the
 * open, which closes the client.
 */
async function endWithoutForeignKeys(tx: Transaction, end: "COMMIT" | "ROLLBACK"): Promise<void> {
  try {
    await tx.executeMultiple(`${end}; PRAGMA foreign_keys = ON; BEGIN DEFERRED`);
  } catch (error) {
    if (end === "COMMIT") throw error;
    await tx.executeMultiple("PRAGMA foreign_keys = ON; BEGIN DEFERRED").catch(() => undefined);
  }
}

/**
 * New clients from the one part of @libsql/client the URL needs: the package's main entry loads
 * libSQL's native binding for file: URLs at import (on Deno that needs --allow-ffi and
 * --allow-sys), so a server URL never loads it. `libsql:` goes over HTTP, as the main entry does.
 */
async function clientFactoryFor(url: string, config: Config, failure: FailureMapper): Promise<() => Client> {
  const scheme = /^([a-z]+):/i.exec(url)?.[1]?.toLowerCase();
  let createClient: (config: Config) => Client;
  try {
    ({ createClient } = await (scheme === "ws" || scheme === "wss"
      ? import("@libsql/client/ws")
      : scheme === "file"
        ? import("@libsql/client/sqlite3")
        : import("@libsql/client/http")));
  } catch (error) {
    throw failure(error, { phase: "autocommit" });
  }
  return () => {
    try {
      return createClient(config);
    } catch (error) {
      throw failure(error, { phase: "autocommit" });
    }
  };
}

/**
 * sqld answers every corruption with the primary code alone (`SQLITE_CORRUPT`, "database disk
 * image is malformed" on SQLite 3.45.1), so FTS5's SQLITE_CORRUPT_VTAB — which core answers by
 * failing open (detach the index, search by LIKE) rather than by refusing every write — arrives
 * indistinguishable from a damaged table. When the failed statement names FTS5 tables, ask FTS5
 * itself: its integrity check of the index structure alone (`rank` 0: not compared with the
 * content, which may be what is damaged), on a stream of its own (the failed statement's
 * transaction may be read-only). Only ever on a corruption error.
 */
async function ftsIndexCorrupt(client: Client, sql: string): Promise<boolean> {
  try {
    const { rows } = await client.execute(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'",
    );
    for (const row of rows) {
      const name = String(row.name);
      if (!new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).test(sql)) continue;
      const quoted = `"${name.replaceAll('"', '""')}"`;
      try {
        await client.execute(`INSERT INTO ${quoted}(${quoted}, rank) VALUES ('integrity-check', 0)`);
      } catch (error) {
        if (/SQLITE_CORRUPT|malformed|corrupt/i.test(String((error as Error).message))) return true;
      }
    }
  } catch {
    // Cannot tell: the error stays what the server said.
  }
  return false;
}

/** Rows as plain objects keyed by column name; BLOBs as Uint8Array; integers as numbers when
 * exact, else bigint (the client reads them as bigint so that none is silently rounded). */
function toExecuteResult(result: ResultSet): ExecuteResult {
  const { columns } = result;
  const rows = result.rows.map((source) => {
    const row: Row = {};
    for (let i = 0; i < columns.length; i++) row[columns[i] as string] = toSqlValue(source[i]);
    return row;
  });
  const rowid = result.lastInsertRowid;
  return { rows, changes: result.rowsAffected, lastInsertRowid: rowid === undefined ? 0 : Number(rowid) };
}

function toSqlValue(value: unknown): SqlValue {
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value;
  }
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return value as SqlValue;
}

/**
 * The bound on a WebSocket request (fetch's signal bounds an HTTP one): a server that stopped
 * answering would otherwise hold every call — and `close()`, which waits for the calls in flight
 * — forever. Past `timeoutMs` the request fails as a TimeoutError (a transport failure: a lost
 * connection, or an unknown outcome on a COMMIT) and `giveUp` replaces the connection, which
 * ends the requests still waiting on the old one and gives the next ones a fresh one.
 */
function answerWithin(
  protocol: string,
  timeoutMs: number,
  giveUp: () => void,
): <T>(request: Promise<T>) => Promise<T> {
  if (protocol !== "ws" || timeoutMs <= 0) return (request) => request;
  return <T>(request: Promise<T>): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`The server sent no answer within ${timeoutMs} ms`);
        error.name = "TimeoutError";
        reject(error);
        // After this request's rejection is delivered: its own failure is the timeout.
        queueMicrotask(giveUp);
      }, timeoutMs);
    });
    return Promise.race([request, expired]).finally(() => clearTimeout(timer));
  };
}

/** The runtime's fetch, aborted after `timeoutMs`. */
function fetchWithTimeout(timeoutMs: number) {
  return (request: Request) => fetch(request, { signal: AbortSignal.timeout(timeoutMs) });
}
