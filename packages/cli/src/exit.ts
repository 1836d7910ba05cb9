/**
 * Exit codes and the mapping from errors to them. Scripts branch on these numbers, so they are
 * part of the CLI's contract (README, "Exit codes"); never renumber one.
 *
 * Errors are classified by their stable `code` (and a SQLite error's result code), not by
 * `instanceof`, so a second copy of @sessiondb/core in node_modules cannot change an exit code.
 */
import { denial, denialMessage } from "./permissions.js";
import { cliMessage } from "./wording.js";

export const EXIT = {
  /** Success; for doctor/check: healthy. */
  OK: 0,
  /** Unexpected failure (a bug, an I/O error outside SQLite). */
  FAILURE: 1,
  /** Bad command line: unknown command or option, missing or malformed argument. */
  USAGE: 2,
  /** No store at the path (read commands never create one). */
  MISSING: 3,
  /** The store stayed locked by another process past the wait budget, or the FTS admission
   * lock is held by another rebuild. Retry later; nothing was changed. */
  BUSY: 4,
  /** The store file is corrupt or is not a SQLite database; check/doctor found integrity problems. */
  CORRUPT: 5,
  /** The store exists but cannot be used as asked: read-only, schema too old/new, unsafe SQLite,
   * no SQLite binding for this runtime, permission denied (by the file system, or by Deno's
   * permission flags: PERMISSION_DENIED). */
  UNUSABLE: 6,
  /** A named session does not exist. */
  NOT_FOUND: 7,
  /** import: some lines were malformed; their sessions were not imported (the others were). */
  BAD_INPUT: 8,
  /** doctor: problems other than corruption (stale index, loose permissions, vulnerable SQLite on WAL). */
  UNHEALTHY: 9,
  /** The disk or quota holding the store is full: the change was not stored, nothing
   * acknowledged was lost. Free space (room for the journal too) and retry. */
  FULL: 10,
  /** Interrupted by SIGINT (128 + 2); work already committed stays, a later run resumes. */
  INTERRUPTED: 130,
} as const;

/** A command-line mistake: exits with EXIT.USAGE. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The store does not exist: exits with EXIT.MISSING. */
export class StoreMissingError extends Error {
  override name = "StoreMissingError";
  constructor(
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(
      `No store at ${path}. Read commands never create one; check --db or $SESSIONDB_PATH, or create it with "sessiondb import".`,
      options,
    );
  }
}

/**
 * A command that works on the store's file (repair, backup) was given a libSQL server URL:
 * exits with EXIT.USAGE, code NEEDS_FILE. The server owns its files; `instead` says what to use.
 */
export class NeedsFileError extends Error {
  override name = "NeedsFileError";
  constructor(command: string, shown: string, instead?: string) {
    super(
      `${command} works on a store file, and ${shown} is a libSQL server, which owns its files${instead ? `; ${instead}` : ""}. Nothing was changed.`,
    );
  }
}

/** An error the command already explained, carrying its exit code. */
export class ExitError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
    readonly code = "FAILED",
  ) {
    super(message);
  }
}

interface Coded {
  code?: unknown;
  resultCode?: unknown;
  cause?: unknown;
}

const CORRUPT_RESULT_CODES = new Set(["CORRUPT", "NOTADB", "CORRUPT_VTAB"]);
const BUSY_RESULT_CODES = new Set(["BUSY", "LOCKED"]);

/** The SQLite result code of `error` or of an error in its cause chain. */
function sqliteResultCode(error: unknown): string | undefined {
  for (
    let e = error as Coded | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as Coded | undefined, depth++
  ) {
    if (typeof e.resultCode === "string") return e.resultCode;
  }
  return undefined;
}

/** Exit code and stable code name for an error. */
export function classify(error: unknown): { exitCode: number; code: string } {
  if (error instanceof UsageError) return { exitCode: EXIT.USAGE, code: "USAGE" };
  if (error instanceof StoreMissingError) return { exitCode: EXIT.MISSING, code: "STORE_MISSING" };
  if (error instanceof NeedsFileError) return { exitCode: EXIT.USAGE, code: "NEEDS_FILE" };
  if (error instanceof ExitError) return { exitCode: error.exitCode, code: error.code };
  if (denial(error)) return { exitCode: EXIT.UNUSABLE, code: "PERMISSION_DENIED" };
  const code = typeof (error as Coded)?.code === "string" ? ((error as Coded).code as string) : "";
  const result = sqliteResultCode(error);
  switch (code) {
    case "STORE_BUSY":
    case "STORE_IN_USE":
      return { exitCode: EXIT.BUSY, code };
    case "BACKUP_DESTINATION_REFUSED":
      return { exitCode: EXIT.USAGE, code };
    case "STORE_CORRUPT":
      return { exitCode: EXIT.CORRUPT, code };
    case "STORE_FULL":
      return { exitCode: EXIT.FULL, code };
    case "SESSION_NOT_FOUND":
      return { exitCode: EXIT.NOT_FOUND, code };
    case "INVALID_INPUT":
      return { exitCode: EXIT.USAGE, code };
    case "STORE_OPEN_FAILED":
      if (result && CORRUPT_RESULT_CODES.has(result)) return { exitCode: EXIT.CORRUPT, code };
      return { exitCode: EXIT.UNUSABLE, code };
    case "STORE_READONLY":
    case "SCHEMA_OUTDATED":
    case "SCHEMA_TOO_NEW":
    case "UNSAFE_SQLITE":
    case "DRIVER_UNAVAILABLE":
    case "STORE_CLOSED":
      return { exitCode: EXIT.UNUSABLE, code };
  }
  if (result && BUSY_RESULT_CODES.has(result))
    return { exitCode: EXIT.BUSY, code: code || `SQLITE_${result}` };
  if (result && CORRUPT_RESULT_CODES.has(result))
    return { exitCode: EXIT.CORRUPT, code: code || `SQLITE_${result}` };
  if (result === "FULL") return { exitCode: EXIT.FULL, code: code || "SQLITE_FULL" };
  if (result === "PERM" || result === "CANTOPEN" || result === "READONLY") {
    return { exitCode: EXIT.UNUSABLE, code: code || `SQLITE_${result}` };
  }
  return { exitCode: EXIT.FAILURE, code: code || "INTERNAL" };
}

/** The one line that explains `error` to the user (without the `sessiondb:` prefix and code):
 * in the CLI's words where the library's name its API (wording.ts). */
export function describe(error: unknown): string {
  const refused = denial(error);
  if (refused) return denialMessage(refused);
  // The CLI's own errors (ExitError may carry a library code) are worded already.
  const own = error instanceof ExitError || error instanceof UsageError;
  const message =
    (own ? undefined : cliMessage(error)) ?? (error instanceof Error ? error.message : String(error));
  return redactSecrets(oneLine(message));
}

/** Credentials this process holds (a server token, a URL's password): never printed. */
const SECRETS = new Set<string>();

/** Keep `secret` out of every error message and report this process prints. */
export function registerSecret(secret: string | undefined): void {
  // Very short values would blank out ordinary words; a real token is long.
  if (secret && secret.length >= 6) SECRETS.add(secret);
}

/** `text` with every registered secret replaced by "[redacted]". */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of SECRETS) out = out.split(secret).join("[redacted]");
  return out;
}

/** One line: newlines folded, so a log grep or `2>` capture sees the whole message. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
