/**
 * What a failure through @libsql/client means for sessiondb: a `SqliteError` with SQLite's
 * result code, told apart by whether the request could have changed anything.
 *
 * - The server answered with an error: SQLite's code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …;
 *   sqld sends `SQLITE_UNKNOWN` for most and no extended code, so the message decides then).
 * - A statement that cannot commit anything — inside a transaction before COMMIT (the server
 *   rolls an abandoned transaction back), or a read — failed in transit: BUSY, safe to run again;
 *   extended code `LIBSQL_UNREACHABLE` when the connection was refused (the server is down),
 *   `LIBSQL_CONNECTION_LOST` when the answer was lost (reset, closed, timeout). So is a server
 *   answer that the stream is gone (an unknown stream or baton: the node restarted).
 * - A COMMIT, or a write outside a transaction, failed in transit — however the failure reads:
 *   IOERR, `LIBSQL_COMMIT_UNKNOWN`. The write may or may not be stored; it is not retried, because
 *   a second append would store the messages twice. The caller reads back before writing again.
 *   Even "connection refused" proves nothing here: Deno's fetch sends a request again on a new
 *   connection when a reused one is reset after delivering it, and reports only that second
 *   attempt's failure — so a COMMIT the server executed (its node then killed) comes back as
 *   refused. The same holds for an answer that the stream or baton is unknown on a COMMIT: the
 *   COMMIT may have run on the first delivery.
 * - sqld rolled a write transaction back because it held the write lock past the server's
 *   transaction timeout while another writer waited (5 s in sqld 0.24): BUSY,
 *   `LIBSQL_TRANSACTION_TIMEOUT` — nothing was stored, the whole body runs again.
 * - sqld failed the request itself (HTTP 500): ERROR, `LIBSQL_SERVER_ERROR`, not retried (the
 *   same request fails the same way); on a COMMIT, `LIBSQL_COMMIT_UNKNOWN`.
 */
import { SqliteError, type SqliteResultCode } from "@sessiondb/core";
import { resultCodeFromMessage, resultCodeFromName } from "@sessiondb/core/driver";

/** The extended codes this package puts on a `SqliteError` (see the module comment). */
export type LibsqlExtendedCode =
  | "LIBSQL_UNREACHABLE"
  | "LIBSQL_CONNECTION_LOST"
  | "LIBSQL_COMMIT_UNKNOWN"
  | "LIBSQL_TRANSACTION_TIMEOUT"
  | "LIBSQL_SERVER_ERROR"
  /** The TLS handshake failed (an https:, wss: or libsql: URL at a plain-HTTP server, or a
   * certificate refused): trying again gives the same answer, so it is never waited for. */
  | "LIBSQL_TLS_FAILED";

/** Where the failed request was: a statement inside a transaction, the transaction's COMMIT, or
 * a statement on its own (autocommit). */
export type RequestPhase = "in-transaction" | "commit" | "autocommit";

/** The shape of @libsql/client's LibsqlError (checked structurally: the client may be another
 * copy of the package). */
interface ClientError {
  code: string;
  extendedCode?: string;
  message: string;
}

function isClientError(error: unknown): error is ClientError & Error {
  return error instanceof Error && typeof (error as Partial<ClientError>).code === "string";
}

/** Connection-establishment failures as Node (undici, ws), Bun and Deno word them: the last
 * attempt never reached the server — which proves nothing about an earlier one (Deno's fetch
 * re-sends), so it decides only the code of a failure that could not have committed anyway. */
const NEVER_SENT =
  /ECONNREFUSED|ConnectionRefused|Connection refused|ENOTFOUND|EAI_AGAIN|getaddrinfo|dns error|ENETUNREACH|EHOSTUNREACH|Unable to connect|tcp connect error|Failed to connect/i;

/** fetch's own failures on each runtime (a TypeError there; other TypeErrors are bugs). */
const FETCH_FAILED =
  /fetch failed|error sending request|Unable to connect|NetworkError|ECONN|ENOTFOUND|EPIPE|socket/i;

/** A TLS handshake that failed, as each runtime words it: OpenSSL's "wrong version number" (Node,
 * a plain server answering a ClientHello), rustls' "InvalidContentType"/"corrupt message" (Deno),
 * Bun's "TLS handshake failed", and certificate refusals. Never sent, never committed. */
const TLS_FAILED =
  /wrong version number|SSL routines|ERR_SSL_|TLS handshake|InvalidContentType|received corrupt message|packet length too long|invalid peer certificate|UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT|CERT_HAS_EXPIRED|ERR_TLS_/i;

/** Codes of the client's own transport failures (the request may have been delivered). */
const TRANSPORT_CODES = new Set([
  "HRANA_WEBSOCKET_ERROR",
  "HRANA_CLOSED_ERROR",
  "SERVER_ERROR",
  "HRANA_PROTO_ERROR",
]);

/** What a request still waiting on a client gets when that client is closed under it: this
 * package closes a WebSocket client whose request timed out, to reconnect (executor.ts), and
 * every other request in flight on it ends so. It may have been delivered. */
const CLIENT_CLOSED = /Client was manually closed/;

/** An HTTP status as the client words it: "Server returned HTTP status 404" (HTTP); for a
 * refused WebSocket upgrade, "Unexpected server response: 404" (Node), "Expected 101 status code:
 * 404" (Bun), "Invalid status code: 404" (Deno). */
const HTTP_STATUS =
  /(?:HTTP status|Unexpected server response:|Expected 101 status code:|Invalid status code:) (\d{3})\b/;
/** HTTP statuses a proxy answers while the server behind it is away. */
const PROXY_AWAY = new Set(["502", "503", "504"]);

/** Server answers that mean the stream (and its transaction) is gone. */
const STREAM_GONE_CODES = new Set(["STREAM_EXPIRED", "STREAM_NOT_FOUND", "STREAM_CLOSED"]);
/** sqld's HTTP answer (400) to a baton it does not know: a restarted node, or a request sent a
 * second time after the first delivery was answered. */
const INVALID_BATON = /invalid baton/i;

/** A statement that cannot change the database, so losing its answer is harmless: a query, a
 * pragma that only reads (no `=`), or FTS5's 'integrity-check' command — an INSERT in form that
 * stores nothing. Without the last two, `checkIntegrity()` read a lost answer to its own check
 * as IOERR, which a local disk gives only for damage, and reported a sound store as damaged. */
const READ_ONLY_SQL =
  /^\s*(?:SELECT|VALUES|EXPLAIN)\b|^\s*PRAGMA\s+(?:integrity_check|quick_check|foreign_key_check|table_info|user_version|schema_version|data_version|page_count|page_size|freelist_count|journal_mode|auto_vacuum|foreign_keys|busy_timeout)\b[^=;]*$|^\s*INSERT\s+INTO\s+(\w+)\s*\(\s*\1\s*,\s*rank\s*\)\s*VALUES\s*\(\s*'integrity-check'\s*,\s*[?\d]+\s*\)\s*$/i;

/** Every message and code along an error's cause chain, for matching transport failures. */
function describeChain(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 6; depth++) {
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      parts.push(`${current.name}: ${current.message}${typeof code === "string" ? ` (${code})` : ""}`);
      current = current.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(" <- ");
}

/** The result code of an error the server answered with. */
function serverResultCode(error: ClientError): SqliteResultCode {
  for (const name of [error.extendedCode, error.code]) {
    if (name === undefined || name === "SQLITE_UNKNOWN") continue;
    const code = resultCodeFromName(name);
    if (code) return code;
  }
  return resultCodeFromMessage(error.message);
}

/**
 * Turn whatever @libsql/client threw into a `SqliteError` (errors that are already one, and
 * programming errors such as a TypeError from bad arguments, pass through).
 */
export function toSqliteError(
  error: unknown,
  /** `url`: the server as messages show it (`displayUrl`), never the URL as given. */
  where: { phase: RequestPhase; sql?: string; url: string },
): unknown {
  if (error instanceof SqliteError) return error;
  const chain = describeChain(error);
  const transport = isTransportFailure(error);
  const harmless = cannotCommit(where);
  if (transport && TLS_FAILED.test(chain)) {
    return new SqliteError(
      "CANTOPEN",
      `The TLS handshake with the libSQL server at ${where.url} failed (${chain}); nothing was sent. For a server without TLS use http:, ws: or libsql:…?tls=0.`,
      { extendedCode: "LIBSQL_TLS_FAILED", cause: error },
    );
  }
  if (transport) {
    if (!harmless) return commitUnknown(where, chain, error);
    if (NEVER_SENT.test(chain)) {
      return new SqliteError(
        "BUSY",
        `The libSQL server at ${where.url} is unreachable (${chain}); nothing was committed. Start it or check the URL.`,
        { extendedCode: "LIBSQL_UNREACHABLE", cause: error },
      );
    }
    return new SqliteError(
      "BUSY",
      `The connection to the libSQL server at ${where.url} was lost (${chain}); nothing was committed.`,
      { extendedCode: "LIBSQL_CONNECTION_LOST", cause: error },
    );
  }
  if (!isClientError(error)) return error;
  if (
    STREAM_GONE_CODES.has(error.code) ||
    (error.code === "SERVER_ERROR" && INVALID_BATON.test(error.message))
  ) {
    if (!harmless) return commitUnknown(where, error.message, error);
    return new SqliteError(
      "BUSY",
      `The libSQL server no longer knows the stream (${error.message}); nothing was committed.`,
      { extendedCode: "LIBSQL_CONNECTION_LOST", cause: error },
    );
  }
  if (error.code === "TRANSACTION_TIMEOUT") {
    return new SqliteError(
      "BUSY",
      `The libSQL server rolled the transaction back: it held the write lock past the server's transaction timeout while another writer waited (${error.message}). Nothing was stored.`,
      { extendedCode: "LIBSQL_TRANSACTION_TIMEOUT", cause: error },
    );
  }
  if (where.phase === "commit" && /no transaction is active/i.test(error.message)) {
    // The server already ended the transaction (its timeout): the COMMIT found nothing to commit.
    return new SqliteError(
      "BUSY",
      `The libSQL server had already rolled the transaction back when COMMIT arrived (${error.message}). Nothing was stored.`,
      { extendedCode: "LIBSQL_TRANSACTION_TIMEOUT", cause: error },
    );
  }
  if (error.code === "SERVER_ERROR" && /status 500\b/.test(error.message)) {
    // sqld's own failure to answer, not a lost connection — e.g. a row whose TEXT is not valid
    // UTF-8, which it cannot encode (over a WebSocket it closes the socket instead, which cannot
    // be told from a lost connection). Running it again gives the same answer.
    if (where.phase === "commit") {
      return new SqliteError(
        "IOERR",
        `The libSQL server at ${where.url} failed while committing (${error.message}): the write may or may not be stored. It was not retried; read back what you need before writing again.`,
        { extendedCode: "LIBSQL_COMMIT_UNKNOWN", cause: error },
      );
    }
    return new SqliteError(
      "ERROR",
      `The libSQL server at ${where.url} failed the request (${error.message}); a row whose text is not valid UTF-8 is one cause.`,
      { extendedCode: "LIBSQL_SERVER_ERROR", cause: error },
    );
  }
  if (error.code === "SQL_PARSE_ERROR" || error.code === "SQL_NO_STATEMENT") {
    return new SqliteError("ERROR", error.message, { extendedCode: error.code, cause: error });
  }
  if (error.code.startsWith("AUTH_") || (error.code === "SERVER_ERROR" && /\b401\b/.test(error.message))) {
    return new SqliteError(
      "AUTH",
      `The libSQL server at ${where.url} refused the credentials (${error.message}): pass a valid authToken.`,
      { extendedCode: error.code, cause: error },
    );
  }
  return new SqliteError(serverResultCode(error), error.message, {
    extendedCode: error.extendedCode ?? error.code,
    cause: error,
  });
}

/** A statement whose failure cannot have committed anything: one inside a transaction before
 * COMMIT (the server rolls the abandoned transaction back), or a read. */
function cannotCommit(where: { phase: RequestPhase; sql?: string }): boolean {
  return (
    where.phase === "in-transaction" || (where.phase === "autocommit" && READ_ONLY_SQL.test(where.sql ?? ""))
  );
}

/** A COMMIT, or a write outside a transaction, that may or may not have been executed. */
function commitUnknown(
  where: { phase: RequestPhase; url: string },
  what: string,
  cause: unknown,
): SqliteError {
  return new SqliteError(
    "IOERR",
    `The connection to the libSQL server at ${where.url} was lost while ${where.phase === "commit" ? "committing" : "writing"} (${what}): the write may or may not be stored. It was not retried, since running it again could store it twice; read back what you need before writing again.`,
    { extendedCode: "LIBSQL_COMMIT_UNKNOWN", cause },
  );
}

/** Whether the request failed in transit rather than with the server's answer. */
function isTransportFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "AbortError" || error.name === "TimeoutError") return true;
  if (error.name === "TypeError") return FETCH_FAILED.test(describeChain(error));
  if (isClientError(error) && CLIENT_CLOSED.test(error.message)) return true;
  if (!isClientError(error) || !TRANSPORT_CODES.has(error.code)) return false;
  // An HTTP status in place of an answer (SERVER_ERROR over HTTP, a refused upgrade over a
  // WebSocket): 502, 503 and 504 come from a proxy in front of a server that is away (restarting,
  // say), so waiting may help. Any other status is the answer of whatever listens there — sqld
  // failing (500), or not a libSQL server at all (404, 501, …) — and asking again gets the same.
  const status = HTTP_STATUS.exec(error.message)?.[1];
  return status === undefined || PROXY_AWAY.has(status);
}
