/**
 * The driver seam: the small synchronous surface every SQLite binding here can satisfy
 * (better-sqlite3, node:sqlite, bun:sqlite, @db/sqlite). Core owns transactions as plain SQL,
 * so their semantics are the same on every runtime; a driver never uses its binding's
 * transaction helper.
 *
 * An adapter supplies a `RawDriver` (open + error classification); `defineDriver` wraps it so
 * every error that leaves a connection or statement is a normalized `SqliteError`, and every
 * path reaches the binding as a file name, never as a URI (sqlite-path.ts).
 */
import { SqliteError, type SqliteResultCode } from "./errors.js";
import { sqliteFileName } from "./sqlite-path.js";

/** A value SQLite can bind or return. Booleans and undefined are converted by core before binding. */
export type SqlValue = string | number | bigint | null | Uint8Array;

/** A result row, keyed by column name. */
export type Row = Record<string, SqlValue>;

/** What `run` reports. */
export interface RunResult {
  /** Rows changed by the statement. */
  changes: number;
  /** Rowid of the last inserted row. */
  lastInsertRowid: number;
}

/** A prepared statement; parameters are always positional (`?`). */
export interface SqliteStatement {
  /** Execute, returning change count and last rowid. */
  run(...params: SqlValue[]): RunResult;
  /** First row, or undefined. */
  get(...params: SqlValue[]): Row | undefined;
  /** All rows. */
  all(...params: SqlValue[]): Row[];
}

/** One open database connection. */
export interface SqliteConnection {
  /** Run one or more statements without results. */
  exec(sql: string): void;
  /** Compile a statement (callers cache statements they reuse). */
  prepare(sql: string): SqliteStatement;
  /** Close the connection; calling it twice is harmless. */
  close(): void;
}

/** How to open a file. */
export interface OpenFlags {
  /** Open with `mode=ro`: no writes, no file creation. */
  readOnly: boolean;
}

/** Where an online backup stands, in pages of the source. */
export interface BackupPageProgress {
  /** Pages in the source when the last step ran. */
  totalPages: number;
  /** Pages still to copy. */
  remainingPages: number;
}

/** How a driver runs SQLite's online backup (sqlite3_backup_*). */
export interface BackupStepOptions {
  /** Pages to copy per step; the driver yields to the event loop between steps. */
  pagesPerStep: number;
  /** Called between steps; throwing from it stops the backup and rejects with that error. */
  onStep?(progress: BackupPageProgress): void;
}

/** A driver as the adapter writes it: open a raw binding and classify its errors. */
export interface RawDriver<C extends SqliteConnection = SqliteConnection> {
  /** Driver name shown in `store.driverName` and diagnostics, e.g. "better-sqlite3". */
  readonly name: string;
  /** Open `path`; may throw the binding's own error (it is classified). */
  open(path: string, flags: OpenFlags): C;
  /** Map a binding error to SQLite's primary result code (and extended code when known). */
  classify(error: unknown): { code: SqliteResultCode; extendedCode?: number | string } | undefined;
  /** Whether `path` is a directory (from the runtime's file system). A read-only open of one
   * "succeeds" and fails at the first read with SQLITE_IOERR_READ (EISDIR), which would look like
   * a failing disk; with this, every driver refuses it up front with CANTOPEN. */
  isDirectory?(path: string): boolean;
  /** Optional: copy the main database of `connection` into a new file at `destination` with
   * SQLite's online backup API. Drivers whose binding has none leave it out, and core uses
   * `VACUUM INTO` instead. */
  backup?(connection: C, destination: string, options: BackupStepOptions): Promise<void>;
}

/** A driver whose connections only ever throw `SqliteError`. */
export interface SqliteDriver {
  /** Driver name, e.g. "better-sqlite3". */
  readonly name: string;
  /** Open `path`; throws `SqliteError`. */
  open(path: string, flags: OpenFlags): SqliteConnection;
  /** Optional online backup of a connection this driver opened (see `RawDriver.backup`);
   * rejects with `SqliteError`. */
  backup?(connection: SqliteConnection, destination: string, options: BackupStepOptions): Promise<void>;
}

/** Turn any error a binding threw into a `SqliteError` (other errors pass through untouched). */
export function normalizeError(raw: RawDriver, error: unknown): unknown {
  if (error instanceof SqliteError) return error;
  const info = raw.classify(error);
  if (!info) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SqliteError(info.code, message, { extendedCode: info.extendedCode, cause: error });
}

/** `method` called on `self` with `args`, its failure normalized. Given the method rather than a
 * closure: statements run several times per store call, and a closure per call is garbage the
 * raw binding does not make. */
function guarded<A extends unknown[], R>(
  raw: RawDriver,
  self: object,
  method: (...args: A) => R,
  args: A,
): R {
  try {
    return method.apply(self, args);
  } catch (error) {
    throw normalizeError(raw, error);
  }
}

/** Wrap an adapter's raw driver so every method throws normalized errors. */
export function defineDriver(raw: RawDriver): SqliteDriver {
  // The binding's connection behind each wrapped one, for `backup`.
  const rawConnections = new WeakMap<SqliteConnection, SqliteConnection>();
  const rawBackup = raw.backup?.bind(raw);
  const driver: SqliteDriver = {
    name: raw.name,
    open(path, flags) {
      if (flags.readOnly && raw.isDirectory?.(path)) {
        throw new SqliteError("CANTOPEN", `unable to open database file: ${path} is a directory`);
      }
      const connection = guarded(raw, raw, raw.open, [sqliteFileName(path), flags]);
      const wrapped: SqliteConnection = {
        exec: (sql) => guarded(raw, connection, connection.exec, [sql]),
        prepare(sql) {
          const statement = guarded(raw, connection, connection.prepare, [sql]);
          return {
            run: (...params) => guarded(raw, statement, statement.run, params),
            get: (...params) => guarded(raw, statement, statement.get, params),
            all: (...params) => guarded(raw, statement, statement.all, params),
          };
        },
        close: () => guarded(raw, connection, connection.close, []),
      };
      rawConnections.set(wrapped, connection);
      return wrapped;
    },
  };
  if (rawBackup) {
    driver.backup = async (connection, destination, options) => {
      const inner = rawConnections.get(connection);
      if (!inner) throw new TypeError(`backup() takes a connection opened by the ${raw.name} driver`);
      try {
        await rawBackup(inner, sqliteFileName(destination), options);
      } catch (error) {
        throw normalizeError(raw, error);
      }
    };
  }
  return driver;
}

/** Every mode `PRAGMA journal_mode` reports, lower-cased. A store's mode is one of the policy's
 * two unless something else set it, e.g. "memory" for ":memory:". */
export const SQLITE_JOURNAL_MODES = ["delete", "truncate", "persist", "memory", "wal", "off"] as const;
export type SqliteJournalMode = (typeof SQLITE_JOURNAL_MODES)[number];
