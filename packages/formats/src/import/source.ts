/**
 * A producer's database as a database format's import reads it: where it is (a root, the
 * format's default places, its environment variable), opened read-only through the caller's
 * driver, and its failures told from the store's and said in words.
 */
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { type SqliteDriver, SqliteError } from "@sessiondb/core";
import type { SqliteConnection } from "@sessiondb/core/driver";
import type { DatabaseFormat } from "../mapped.js";
import type { ImportOptions } from "./result.js";

/** How long a read waits for a lock another program holds (a rollback-journal writer). */
const BUSY_TIMEOUT_MS = 3000;

/** The database at `path`, read-only: no write, no file created but SQLite's WAL sidecars. */
export function openSource(driver: SqliteDriver, path: string): SqliteConnection {
  const db = driver.open(path, { readOnly: true });
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** A failure of the database being read (not of the store written to). */
export class SourceError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** The records, a failure to read one thrown as a SourceError. */
export function* fromSource<T>(records: () => Iterable<T>): Generator<T> {
  let iterator: Iterator<T>;
  try {
    iterator = records()[Symbol.iterator]();
  } catch (error) {
    throw new SourceError(error);
  }
  for (;;) {
    let step: IteratorResult<T>;
    try {
      step = iterator.next();
    } catch (error) {
      throw new SourceError(error);
    }
    if (step.done) return;
    yield step.value;
  }
}

/** The format's databases under the home folder, or where its environment variables say. */
export function defaultRoots(format: DatabaseFormat, options: ImportOptions): string[] {
  const fromEnv = format.rootsFromEnv?.(options.env ?? process.env);
  if (fromEnv !== undefined) return fromEnv;
  // The home folder is asked for only when needed (Deno asks a permission for it).
  const home = options.home ?? homedir();
  return format.defaultRoots.map((r) => join(home, r));
}

/** The database a root names: the file itself, or the format's file in a folder. */
export function databaseFile(root: string, format: DatabaseFormat): string | undefined {
  try {
    if (!statSync(root).isDirectory()) return root;
    const inside = join(root, format.fileName);
    statSync(inside);
    return inside;
  } catch {
    return undefined;
  }
}

/** Why a database could not be read, in words. */
export function readError(error: unknown, format: DatabaseFormat): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof SqliteError)) return `${message}; nothing was imported from it`;
  switch (error.resultCode) {
    case "NOTADB":
    case "CORRUPT":
      return `not a SQLite database (${message}); nothing was imported from it`;
    case "BUSY":
    case "LOCKED":
      return `locked by another program (${message}); what was not imported comes in when the import is run again`;
    default:
      return `cannot be read as ${format.name}'s database (${message})`;
  }
}
