/**
 * Where the store is and how each command opens it. Read commands open read-only and never
 * create a store; only `import` may create one. Existence is checked here first, so "no store"
 * gets its own exit code instead of a generic open failure.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as nodePath from "node:path";
import process from "node:process";
import type { Store, StoreOptions } from "@sessiondb/core";
import { StoreMissingError, UsageError } from "./exit.js";
import { fileError } from "./paths.js";
import type { Runtime } from "./runtime.js";

/** Options every command accepts. */
export interface GlobalOptions {
  /** --db, else $SESSIONDB_PATH, else ~/.sessiondb/state.db. */
  db?: string;
  /** --wait MS: how long to wait for a locked store before exit code 4. */
  wait?: string;
}

/** The store path and whether it is the default one (whose directory `import` may create). */
export function storePath(options: GlobalOptions): { path: string; isDefault: boolean } {
  if (options.db !== undefined) {
    if (options.db === "") throw new UsageError("--db needs a path");
    return { path: nodePath.resolve(options.db), isDefault: false };
  }
  const fromEnv = process.env.SESSIONDB_PATH;
  if (fromEnv) return { path: nodePath.resolve(fromEnv), isDefault: false };
  return { path: nodePath.join(os.homedir(), ".sessiondb", "state.db"), isDefault: true };
}

/** Patience budgets from --wait (default: the library's own, 20 s). */
export function patience(options: GlobalOptions): StoreOptions["patience"] | undefined {
  if (options.wait === undefined) return undefined;
  const ms = parseNonNegativeInt(options.wait, "--wait");
  return { openMs: ms, writeMs: ms, appendMs: ms };
}

/** A non-negative integer option, or a usage error naming it. */
export function parseNonNegativeInt(text: string, name: string): number {
  if (!/^\d+$/.test(text))
    throw new UsageError(`${name} expects a non-negative integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** A positive integer option. */
export function parsePositiveInt(text: string, name: string): number {
  const n = parseNonNegativeInt(text, name);
  if (n === 0) throw new UsageError(`${name} must be at least 1`);
  return n;
}

/** A directory or device at the path is "there" but not a store: the library says so (exit 6). */
function requireExisting(path: string): void {
  if (!fs.existsSync(path)) throw new StoreMissingError(path);
}

export type OpenMode =
  /** mode=ro; the store must exist. */
  | "read"
  /** writable; the store must exist. */
  | "write"
  /** writable; created (and the default directory too) when missing. */
  | "create";

/** Open the store for a command. */
export function openFor(
  runtime: Runtime,
  options: GlobalOptions,
  mode: OpenMode,
  extra: StoreOptions = {},
): Store {
  const { path, isDefault } = storePath(options);
  if (mode !== "create") requireExisting(path);
  else if (isDefault) {
    const folder = nodePath.dirname(path);
    try {
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw fileError(error, `cannot create the store's folder ${folder}`, "nothing was stored");
    }
  }
  const wait = patience(options);
  return runtime.open(path, { ...extra, readOnly: mode === "read", ...(wait ? { patience: wait } : {}) });
}

/** Size of the store's files in bytes (missing files count 0). */
export function fileSizes(path: string): { db: number; wal: number; shm: number; total: number } {
  const size = (p: string) => {
    try {
      return fs.statSync(p).size;
    } catch {
      return 0;
    }
  };
  const db = size(path);
  const wal = size(`${path}-wal`);
  const shm = size(`${path}-shm`);
  return { db, wal, shm, total: db + wal + shm };
}
