/**
 * Every error sessiondb throws extends `SessionDbError` and carries a stable `code`.
 * Messages say what happened, what is intact, and what to do next.
 *
 * @example
 * try {
 *   store.appendMessage("nope", { role: "user", content: "hi" });
 * } catch (error) {
 *   if (error instanceof SessionNotFoundError) store.createSession({ id: "nope", source: "cli" });
 * }
 */

/** SQLite primary result codes the drivers normalize to (sqlite.org/rescode.html). */
export const SQLITE_RESULT_CODES = [
  "ERROR",
  "INTERNAL",
  "PERM",
  "ABORT",
  "BUSY",
  "LOCKED",
  "NOMEM",
  "READONLY",
  "INTERRUPT",
  "IOERR",
  "CORRUPT",
  "CORRUPT_VTAB",
  "NOTFOUND",
  "FULL",
  "CANTOPEN",
  "PROTOCOL",
  "SCHEMA",
  "TOOBIG",
  "CONSTRAINT",
  "MISMATCH",
  "MISUSE",
  "NOLFS",
  "AUTH",
  "RANGE",
  "NOTADB",
] as const;

/** A primary result code, e.g. "BUSY". */
export type SqliteResultCode = (typeof SQLITE_RESULT_CODES)[number];

/** The codes of sessiondb's own errors, one per `SessionDbError` subclass below. */
export const ERROR_CODES = [
  "INVALID_INPUT",
  "SESSION_NOT_FOUND",
  "STORE_BUSY",
  "STORE_READONLY",
  "STORE_CORRUPT",
  "STORE_FULL",
  "STORE_OPEN_FAILED",
  "SCHEMA_OUTDATED",
  "SCHEMA_TOO_NEW",
  "UNSAFE_SQLITE",
  "DRIVER_UNAVAILABLE",
  "STORE_CLOSED",
  "BACKUP_DESTINATION_REFUSED",
  "STORE_IN_USE",
] as const;

/** Every `code` a `SessionDbError` can carry: one of ours, or `SQLITE_<result code>` for a
 * `SqliteError`. A closed union, so a `switch` over it can be checked for exhaustiveness. */
export type SessionDbErrorCode = (typeof ERROR_CODES)[number] | `SQLITE_${SqliteResultCode}`;

/** Base class: every sessiondb error has a stable machine-readable `code`. */
export class SessionDbError<Code extends SessionDbErrorCode = SessionDbErrorCode> extends Error {
  /** Stable identifier for this kind of failure. */
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A SQLite failure, normalized by the driver: `resultCode` is the primary code on every runtime. */
export class SqliteError extends SessionDbError<`SQLITE_${SqliteResultCode}`> {
  /** Primary result code, e.g. "BUSY". `CORRUPT_VTAB` is kept apart from `CORRUPT`. */
  readonly resultCode: SqliteResultCode;
  /** Extended result code as the binding exposes it (number or name), when it does. */
  readonly extendedCode: number | string | undefined;

  constructor(
    resultCode: SqliteResultCode,
    message: string,
    options?: { extendedCode?: number | string; cause?: unknown },
  ) {
    super(`SQLITE_${resultCode}`, message, { cause: options?.cause });
    this.resultCode = resultCode;
    this.extendedCode = options?.extendedCode;
  }
}

/** The caller passed something invalid; nothing was stored or changed. */
export class InvalidInputError extends SessionDbError<"INVALID_INPUT"> {
  /** The argument or field that was wrong, e.g. "message.role". */
  readonly field: string;

  constructor(field: string, problem: string) {
    super("INVALID_INPUT", `Invalid ${field}: ${problem}. Nothing was stored.`);
    this.field = field;
  }
}

/** The named session does not exist. */
export class SessionNotFoundError extends SessionDbError<"SESSION_NOT_FOUND"> {
  readonly sessionId: string;

  constructor(sessionId: string) {
    super(
      "SESSION_NOT_FOUND",
      `Session ${JSON.stringify(sessionId)} does not exist. Create it with store.createSession({ id, source }) first; nothing was stored.`,
    );
    this.sessionId = sessionId;
  }
}

/** Other processes kept the store locked for longer than the patience budget. */
export class StoreBusyError extends SessionDbError<"STORE_BUSY"> {
  /** How long we waited, in milliseconds. */
  readonly waitedMs: number;

  constructor(waitedMs: number, detail: string, options?: { cause?: unknown }) {
    super(
      "STORE_BUSY",
      `The store stayed locked by other connections for ${(waitedMs / 1000).toFixed(1)} s, so the operation was not applied. Stored data is intact; retry later.${detail ? ` ${detail}` : ""}`,
      options,
    );
    this.waitedMs = waitedMs;
  }
}

/** A write was attempted on a store that is read-only (opened so, or the file is not writable). */
export class StoreReadOnlyError extends SessionDbError<"STORE_READONLY"> {
  constructor(detail: string, options?: { cause?: unknown }) {
    super("STORE_READONLY", `The store is read-only: ${detail}. Nothing was changed.`, options);
  }
}

/** The database file is structurally corrupt; the store refuses every write from now on. */
export class StoreCorruptError extends SessionDbError<"STORE_CORRUPT"> {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      "STORE_CORRUPT",
      `The store file is corrupt (${detail}). Writes are refused to avoid spreading the damage; read what you can, then repair the store (repairStore) or restore it from a backup.`,
      options,
    );
  }
}

/** The disk (or the quota) that holds the store is full: the change was not stored. SQLite rolled
 * the transaction back, so what was acknowledged before is intact. A backup whose copy met a full
 * disk is this error too, naming the copy's file (`written`): nothing of it is left there. */
export class StoreFullError extends SessionDbError<"STORE_FULL"> {
  /** What was not stored, e.g. `the append of 3 messages to session "s1"`. */
  readonly operation: string;

  /** `outcome` completes the sentence about `operation` (default "was not stored"); `written`,
   * the file a copy was being written to when that file's disk was the full one. */
  constructor(operation: string, options?: { cause?: unknown; outcome?: string; written?: string }) {
    super(
      "STORE_FULL",
      options?.written === undefined
        ? `The disk or quota that holds the store is full: ${operation} ${options?.outcome ?? "was not stored"}. Nothing acknowledged before was lost and the store is intact. Free disk space or raise the quota, leaving room for the store's journal as well (SQLite writes the -wal or -journal file before the database grows), then retry.`
        : `The disk or quota that holds ${JSON.stringify(options.written)} is full: ${operation} ${options.outcome ?? "was not written"}, and nothing of it is left there. The store itself is unchanged. Free disk space or raise the quota there, then retry.`,
      options,
    );
    this.operation = operation;
  }
}

/** The store cannot be opened at all: missing, a directory, not a database, no permission. */
export class StoreOpenError extends SessionDbError<"STORE_OPEN_FAILED"> {
  readonly path: string;
  /** True when there is no store there yet — a missing file, or a database without tables (an
   * empty server database) — opened read-only, which never creates one. A writable open creates
   * it. False for another application's database (tables, none of the store's): no open uses it. */
  readonly noStore: boolean;
  /** Why, without the path (the message is "Cannot open store PATH: DETAIL."). */
  readonly detail: string;

  constructor(path: string, detail: string, options?: { cause?: unknown; noStore?: boolean }) {
    super(
      "STORE_OPEN_FAILED",
      `Cannot open store ${JSON.stringify(path)}: ${detail}.`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.path = path;
    this.noStore = options?.noStore === true;
    this.detail = detail;
  }
}

/** A read-only open found the store behind this build's schema; open it writable once to upgrade. */
export class SchemaOutdatedError extends SessionDbError<"SCHEMA_OUTDATED"> {
  /** What is missing, e.g. `messages.reasoning` or `state_meta`. */
  readonly missing: string;

  constructor(missing: string, options?: { cause?: unknown }) {
    super(
      "SCHEMA_OUTDATED",
      `The store's schema is older than this version of sessiondb (missing ${missing}). Open it writable once to upgrade it in place; nothing was changed.`,
      options,
    );
    this.missing = missing;
  }
}

/** The store was written by a newer sessiondb; this version refuses to write to it. */
export class SchemaTooNewError extends SessionDbError<"SCHEMA_TOO_NEW"> {
  readonly storeVersion: number;
  readonly supportedVersion: number;

  constructor(storeVersion: number, supportedVersion: number) {
    super(
      "SCHEMA_TOO_NEW",
      `The store has schema version ${storeVersion}, newer than the ${supportedVersion} this sessiondb understands. Upgrade sessiondb, or open the store with { readOnly: true }; nothing was changed.`,
    );
    this.storeVersion = storeVersion;
    this.supportedVersion = supportedVersion;
  }
}

/** This SQLite build has the WAL-reset bug; opening a WAL store writable could corrupt it. */
export class UnsafeSqliteError extends SessionDbError<"UNSAFE_SQLITE"> {
  readonly sqliteVersion: string;

  constructor(sqliteVersion: string, detail: string) {
    super(
      "UNSAFE_SQLITE",
      `SQLite ${sqliteVersion} has the WAL-reset bug (fixed in 3.51.3, 3.50.7 and 3.44.6) and ${detail}. Use a runtime with a fixed SQLite, open with { readOnly: true }, or pass { allowUnsafeWal: true } if every process that writes this file is known to be single-connection.`,
    );
    this.sqliteVersion = sqliteVersion;
  }
}

/** No usable SQLite binding for this runtime. */
export class DriverUnavailableError extends SessionDbError<"DRIVER_UNAVAILABLE"> {
  constructor(detail: string, options?: { cause?: unknown }) {
    super("DRIVER_UNAVAILABLE", detail, options);
  }
}

/** The store was closed; open it again to continue. */
export class StoreClosedError extends SessionDbError<"STORE_CLOSED"> {
  /** `detail`: what closed, when it is not the store itself (a transaction's store). */
  constructor(detail?: string) {
    super("STORE_CLOSED", detail ?? "The store is closed; open it again with openStore(path).");
  }
}

/** Why a backup destination was refused. */
export type BackupRefusal =
  | "is-store"
  | "sqlite-file"
  | "exists"
  | "no-folder"
  | "not-a-file"
  | "not-permitted";

/** `store.backup(dest)` (or `repairStore`'s `output`) refused the destination; nothing was
 * written anywhere. */
export class BackupDestinationError extends SessionDbError<"BACKUP_DESTINATION_REFUSED"> {
  readonly destination: string;
  readonly reason: BackupRefusal;

  constructor(destination: string, reason: BackupRefusal, detail: string, options?: { cause?: unknown }) {
    super(
      "BACKUP_DESTINATION_REFUSED",
      `Will not write a copy of the store to ${JSON.stringify(destination)}: it ${detail}. Nothing was written and the store is unchanged; pick a new file name${reason === "exists" ? " (or, for a backup, pass { overwrite: true })" : ""}.`,
      options,
    );
    this.destination = destination;
    this.reason = reason;
  }
}

/** Repair refused to touch a store that another process has open or locked. */
export class StoreInUseError extends SessionDbError<"STORE_IN_USE"> {
  readonly path: string;
  /** The lock that was seen, e.g. "write lock (RESERVED)". */
  readonly lock: string;

  constructor(path: string, lock: string) {
    super(
      "STORE_IN_USE",
      `Another process holds the ${lock} on ${JSON.stringify(path)}, so repair did not run; nothing was changed. Stop every process that uses the store and retry, or pass { force: true } (--force) only if that process will never write again: one that keeps the store open across a forced repair goes on using the damaged original.`,
    );
    this.path = path;
    this.lock = lock;
  }
}

/** True when `error` is a SQLite error with one of `codes`. */
export function hasResultCode(error: unknown, ...codes: SqliteResultCode[]): error is SqliteError {
  return error instanceof SqliteError && codes.includes(error.resultCode);
}

/** SQLITE_IOERR_SHMSIZE: a -shm file could not be created or grown, which only a full disk or
 * quota does (SQLite writes a byte into each new page so that this fails here rather than as a
 * SIGBUS later). A closed WAL store needs a new -shm before its first read. */
const IOERR_SHMSIZE = 4874;

/** True when `error` says the disk or quota holding the store is full. */
export function isDiskFull(error: unknown): error is SqliteError {
  if (hasResultCode(error, "FULL")) return true;
  return (
    hasResultCode(error, "IOERR") &&
    (error.extendedCode === IOERR_SHMSIZE || error.extendedCode === "SQLITE_IOERR_SHMSIZE")
  );
}

/** A full disk or quota, as SQLite says it (isDiskFull) or the file system does (ENOSPC, EDQUOT). */
export function isOutOfSpace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isDiskFull(error) || code === "ENOSPC" || code === "EDQUOT";
}

/**
 * SQLITE_READONLY_RECOVERY (264: READONLY | 1 << 8) and SQLITE_READONLY_CANTINIT (1288: READONLY |
 * 5 << 8), by number or by name as the bindings give them: a connection that cannot write the -shm (a store of another user, a
 * read-only mount) found the WAL index while a writer was rebuilding it. It clears once the
 * writer is done — the next read goes through — so it is waited for like a lock. Taken for what
 * SQLite's plain READONLY means, it turned a read into STORE_READONLY, and the schema probe of a
 * read-only open into SCHEMA_OUTDATED ("open it writable once").
 */
const WAL_INDEX_BEING_REBUILT = new Set<number | string>([
  // Not 776, READONLY_ROLLBACK: a hot rollback journal, which only a writable connection clears
  // (the read-only store's own wait, store.ts).
  264,
  1288,
  "SQLITE_READONLY_RECOVERY",
  "SQLITE_READONLY_CANTINIT",
]);

/** BUSY and LOCKED mean "someone else holds the lock": the only failures worth waiting for —
 * with a WAL index another connection is rebuilding (above), which is one in all but name. */
export function isContention(error: unknown): error is SqliteError {
  return (
    hasResultCode(error, "BUSY", "LOCKED") ||
    (hasResultCode(error, "READONLY") &&
      error.extendedCode !== undefined &&
      WAL_INDEX_BEING_REBUILT.has(error.extendedCode))
  );
}
