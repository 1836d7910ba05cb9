/**
 * Open-time error fix-ups shared by both Node drivers. Only consulted after an open already
 * failed, so a successful open costs no extra system call.
 */
import { statSync } from "node:fs";
import { SqliteError } from "@sessiondb/core";

/**
 * A directory opened read-only fails with SQLITE_IOERR_READ (the open(2) succeeds, the first
 * read gets EISDIR) on both bindings, which would look like a failing disk. Report it as what it
 * is: CANTOPEN. Returns undefined when `path` is not a directory.
 */
export function directoryOpenError(path: string, error: unknown): SqliteError | undefined {
  try {
    if (!statSync(path).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  // No extended code: the binding's (SQLITE_IOERR_READ) would contradict CANTOPEN; it stays in `cause`.
  return new SqliteError("CANTOPEN", `unable to open database file: ${path} is a directory`, {
    cause: error,
  });
}
