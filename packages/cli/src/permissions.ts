/**
 * What this process is allowed to do, told apart from what the file system allows. Deno refuses
 * whatever its permission flags do not cover with a `NotCapable` error ("Requires env access to
 * "X", run again with the --allow-env flag"); the CLI reports that as one line naming the flag,
 * and its checks (doctor, check) never mistake such a refusal for a problem with the store.
 */
import * as fs from "node:fs";

/** A refusal by the runtime's permission system (Deno's `NotCapable`). */
export interface Denial {
  /** "env", "read", "write", "sys", "net", "run", "ffi". */
  kind: string;
  /** What was asked for, as Deno names it (`"SESSIONDB_PATH"`, `"homedir"`, a path), if it says. */
  target: string | undefined;
  /** The flag that grants it, e.g. "--allow-env". */
  flag: string;
}

const DENO_MESSAGE = /Requires (\w+) access(?: to (.+?))?, run again with the (--allow-[\w-]+) flag/;

/** The Deno permission refusal in `error` or its cause chain, if that is what it is: a
 * `NotCapable`, or (for an import it refused) a TypeError with the same message. */
export function denial(error: unknown): Denial | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { name, message } = e as { name?: unknown; message?: unknown };
    const match = typeof message === "string" ? DENO_MESSAGE.exec(message) : null;
    if (match) return { kind: match[1] as string, target: match[2], flag: match[3] as string };
    if (name === "NotCapable")
      return { kind: "some", target: undefined, flag: "the matching --allow-* flag" };
  }
  return undefined;
}

/** One line for a refusal: what was refused and the flag to add. */
export function denialMessage({ kind, target, flag }: Denial): string {
  const scoped = kind === "sys" && target ? ` (or ${flag}=${target.replace(/"/g, "")})` : "";
  return `Deno denied ${kind} access${target ? ` to ${target}` : ""}; run sessiondb again with ${flag}${scoped}. Nothing was changed. The CLI README's Install section has the deno command with every permission it uses`;
}

/** An environment variable, or undefined when unset or when the runtime does not let us read it
 * (for settings that only add detail, such as SESSIONDB_DEBUG in the error handler). */
export function envIfAllowed(name: string): string | undefined {
  try {
    return process.env[name];
  } catch {
    return undefined;
  }
}

export type WriteAccess = "writable" | "read-only" | "not-allowed";

/**
 * May this process write the file? "writable"; "read-only" when the system says no (mode bits,
 * owner, a read-only mount); "not-allowed" when the runtime's permissions do not cover it (Deno
 * without --allow-write for it), which says nothing about the file.
 *
 * It asks by opening the file for reading and writing (nothing is written; mtime is untouched):
 * the kernel's own answer, where `access()` would need Deno's --allow-sys=uid,gid on top. Call it
 * while this process has no SQLite connection on the file: closing any descriptor of a file
 * drops every POSIX lock the process holds on it (sqlite.org "How To Corrupt", §2.2).
 */
export function writeAccess(path: string): WriteAccess {
  let fd: number;
  try {
    fd = fs.openSync(path, "r+");
  } catch (error) {
    return denial(error) ? "not-allowed" : "read-only";
  }
  fs.closeSync(fd);
  return "writable";
}
