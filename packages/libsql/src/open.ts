/**
 * `openStore(url, options)`: the sessiondb Store on a libSQL server — core's async Store over
 * this package's executor, with the lease row as its FTS admission.
 */
import {
  type AsyncStore,
  type AsyncStoreOptions,
  createAsyncStore,
  InvalidInputError,
  isWalResetVulnerable,
  SqliteError,
  StoreBusyError,
  StoreOpenError,
  UnsafeSqliteError,
} from "@sessiondb/core";
import { connectWithOpenPatience, displayUrl } from "@sessiondb/core/driver";
import { credentialsOf } from "./credentials.js";
import { isNoAnswer, type LibsqlExecutor, openLibsqlExecutor } from "./executor.js";
import { leaseAdmission } from "./lease.js";

/** `openStore` options: the Store's (patience, read-only, recovery; the file options — journal
 * mode, host, WAL safety — do not apply: the server owns its files) and the connection's. */
export interface LibsqlStoreOptions extends Omit<AsyncStoreOptions, "admission"> {
  /** The token a server that requires one checks (a Turso database always does). */
  authToken?: string | null | undefined;
  /** Give up on a request after this many ms (default 60 000; 0: never): a timed-out read or
   * uncommitted transaction is retried within patience, a timed-out COMMIT is
   * `LIBSQL_COMMIT_UNKNOWN`. */
  requestTimeoutMs?: number | null | undefined;
  /** file: URLs only: write a WAL-mode file even though libSQL's SQLite (3.45.1) has the
   * WAL-reset bug — only if no other process writes that file. */
  allowUnsafeWal?: boolean | null | undefined;
  /** Not offered: a server decides how its commits reach its disk (sqld's own settings), and
   * libSQL's file: connections keep the client library's. Any value but null is refused, rather
   * than a durability asked for and silently not given. */
  durability?: null | undefined;
}

const URL_SCHEMES = /^(libsql|https?|wss?|file):/i;

/**
 * Open (creating or upgrading when writable) the sessiondb store in the database at `url`:
 * `libsql://…` (Turso, or `?tls=0` for a plain server; Hrana over HTTP, as `https://` /
 * `http://`), `wss://` / `ws://` (over a WebSocket) or `file:` (a local file through libSQL's own
 * SQLite). A server not reachable yet (refused, unknown host, dropped) is waited for within the
 * open patience (`patience.openMs`), then `StoreOpenError` saying so; refused credentials, a URL
 * the client rejects and a database that is no store fail at once. Every method of the store
 * returns a promise; `close()` it when done.
 */
export async function openStore(url: string, options?: LibsqlStoreOptions | null): Promise<AsyncStore> {
  if (typeof url !== "string" || !URL_SCHEMES.test(url)) {
    throw new InvalidInputError(
      "openStore.url",
      `expected a libsql:, https:, http:, wss:, ws: or file: URL, got ${typeof url === "string" ? JSON.stringify(displayUrl(url)) : typeof url}`,
    );
  }
  if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options))) {
    // Destructured, a number or a string reads as no options at all.
    throw new InvalidInputError(
      "openStore options",
      `expected an object or nothing, got ${Array.isArray(options) ? "an array" : typeof options}`,
    );
  }
  const { authToken, requestTimeoutMs, allowUnsafeWal, durability, ...storeOptions } = options ?? {};
  if (durability !== undefined && durability !== null) {
    throw new InvalidInputError(
      "openStore.durability",
      "a libSQL server decides how its commits reach its disk (its own settings, not a client's); leave durability out. It is an option of the embedded stores (@sessiondb/node, bun, deno)",
    );
  }
  if (authToken !== undefined && typeof authToken !== "string") {
    throw new InvalidInputError("openStore.authToken", "expected a string");
  }
  if (
    requestTimeoutMs !== undefined &&
    (typeof requestTimeoutMs !== "number" || !Number.isSafeInteger(requestTimeoutMs) || requestTimeoutMs < 0)
  ) {
    throw new InvalidInputError("openStore.requestTimeoutMs", "expected an integer number of ms, 0 or more");
  }
  let executor: LibsqlExecutor;
  try {
    executor = await connectWithOpenPatience(storeOptions, (answerWithinMs) =>
      connect(url, authToken, requestTimeoutMs, answerWithinMs),
    );
  } catch (error) {
    throw openFailure(url, credentialsOf(url, authToken).scrubError(error));
  }
  let store: AsyncStore;
  try {
    store = await createAsyncStore(executor, { ...storeOptions, admission: leaseAdmission(executor) });
  } catch (error) {
    executor.close();
    // Core cannot name a server's database; this package can (without credentials).
    if (error instanceof StoreOpenError) {
      throw error.noStore
        ? noStoreAt(url, error)
        : new StoreOpenError(displayUrl(url), error.detail, { cause: error.cause ?? error });
    }
    throw error;
  }
  // A server owns its files (no journal policy applies). A file: URL is this process's SQLite on
  // a file other processes may write with theirs: the embedded stores' rule applies.
  if (
    executor.protocol === "file" &&
    !store.readOnly &&
    store.journalMode === "wal" &&
    allowUnsafeWal !== true &&
    isWalResetVulnerable(store.sqliteVersion)
  ) {
    await store.close();
    throw new UnsafeSqliteError(
      store.sqliteVersion,
      `${displayUrl(url)} is a WAL-mode file it was asked to write`,
    );
  }
  return store;
}

/** An empty database opened read-only: no store there yet, named by its URL. */
function noStoreAt(url: string, error: StoreOpenError): StoreOpenError {
  return new StoreOpenError(
    displayUrl(url),
    "no sessiondb store is there yet: the database has none of its tables, and a read-only open never creates them (a writable open does, e.g. `sessiondb import`)",
    { cause: error, noStore: true },
  );
}

/**
 * The executor, once the server answers its first statement. Node's WebSocket reports a refused
 * token as a closed connection (1006), which reads as "connection lost" and would be waited for:
 * over a WebSocket that failure is checked over HTTP, and a 401 there is the AUTH failure it is.
 */
async function connect(
  url: string,
  authToken: string | undefined,
  requestTimeoutMs: number | undefined,
  answerWithinMs: number,
): Promise<LibsqlExecutor> {
  try {
    return await openLibsqlExecutor(url, { authToken, requestTimeoutMs, answerWithinMs });
  } catch (error) {
    if (
      error instanceof SqliteError &&
      error.extendedCode === "LIBSQL_CONNECTION_LOST" &&
      !isNoAnswer(error) &&
      /^(wss?|libsql):/i.test(url) &&
      (await refusedOverHttp(url, authToken))
    ) {
      throw new SqliteError("AUTH", "the server refused the credentials (HTTP 401)", { cause: error });
    }
    throw error;
  }
}

const CREDENTIALS_HINT = "pass a valid authToken (SESSIONDB_AUTH_TOKEN for the CLI)";

/** Why the open could not reach a store, as StoreOpenError (the cause keeps the error behind it:
 * a `SqliteError`, whose `extendedCode` says more). */
function openFailure(url: string, error: unknown): unknown {
  const where = displayUrl(url);
  if (error instanceof StoreBusyError && error.cause instanceof SqliteError) {
    // The server stayed unreachable (or kept dropping the connection) for the whole open patience
    // — or, for a file: URL, another process kept the file locked.
    const what = /^file:/i.test(url) ? "the file stayed locked" : "the libSQL server did not answer";
    const waited = `for ${(error.waitedMs / 1000).toFixed(1)} s, the open patience (patience.openMs; the CLI's --wait)`;
    return new StoreOpenError(where, `${what} ${waited}: ${error.cause.message.replace(/\.$/, "")}`, {
      cause: error.cause,
    });
  }
  if (!(error instanceof SqliteError)) {
    // Bad options, rejected before anything was sent.
    if (error instanceof InvalidInputError) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new StoreOpenError(where, `the libSQL client refused it (${message.replace(/\.$/, "")})`, {
      cause: error,
    });
  }
  const detail =
    error.resultCode === "AUTH"
      ? `the server refused the credentials: ${CREDENTIALS_HINT}`
      : error.message.replace(/\.$/, "");
  return new StoreOpenError(where, detail, { cause: error });
}

async function refusedOverHttp(url: string, authToken: string | undefined): Promise<boolean> {
  try {
    const parsed = new URL(url);
    const tls =
      parsed.protocol === "wss:" || (parsed.protocol === "libsql:" && parsed.searchParams.get("tls") !== "0");
    // The client takes a token in the URL over the option, and so does this check.
    const token = parsed.searchParams.get("authToken") ?? authToken;
    const response = await fetch(`${tls ? "https" : "http"}://${parsed.host}/v2/pipeline`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ requests: [{ type: "close" }] }),
      signal: AbortSignal.timeout(5_000),
    });
    await response.body?.cancel();
    return response.status === 401;
  } catch {
    return false;
  }
}
