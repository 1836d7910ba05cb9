/**
 * The driver contract's harness: what a runtime passes in, the per-test context (temporary
 * files, connections closed afterwards) and the check every test uses — a normalized
 * `SqliteError` with the result code, and the extended code where the binding has one.
 */
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteError, type SqliteResultCode } from "@sessiondb/core";
import type { SqliteConnection, SqliteDriver } from "@sessiondb/core/driver";
import { assert, type Runner } from "./harness.js";

/**
 * Take `begin` ("BEGIN EXCLUSIVE" or "BEGIN IMMEDIATE") on the database at `path` (table t(v)
 * exists), write a row, and resolve once the lock is held; the returned function rolls back,
 * releases and resolves when done.
 */
export type LockHolder = (path: string, begin: string) => Promise<() => Promise<void>>;

/** Failures whose errors carry SQLite's extended result code in a binding. */
export interface ExtendedCodes {
  /** Errors from prepare/run/get/all. */
  statements?: boolean;
  /** Errors from exec (Deno's node:sqlite gives these only a message). */
  exec?: boolean;
  /** Errors from opening a missing file or a file in a missing directory. */
  open?: boolean;
}

export interface DriverContractTarget extends Runner {
  /** Label in test names, e.g. "node:sqlite (Deno)". */
  name: string;
  /** The driver under test. */
  driver: SqliteDriver;
  /** What `driver.name` must be; default: `name`. */
  driverName?: string;
  /**
   * A lock holder in another OS process (POSIX locks are per process); the BUSY tests then run
   * against it as well as against a second connection in this process.
   */
  holdLock?: LockHolder;
  /**
   * Where this binding reports extended result codes; default: everywhere. The contract demands
   * one there and checks its value wherever one is present. Without them on statements, FTS5
   * corruption is told from b-tree corruption only by SQLite's message (see the CORRUPT_VTAB tests).
   */
  extendedCodes?: ExtendedCodes;
  /**
   * The binding cannot turn double-quoted string literals off, so they follow the SQLite build
   * (on in bun:sqlite's own build and Debian's; off in SQLite's recommended build). Default: the
   * driver turns them off, and the contract demands it.
   */
  dqsFromBuild?: boolean;
  /**
   * Whether SQLite's message for FTS5 corruption names FTS5 ("fts5: corruption …": current
   * SQLite does; 3.40 says only "database disk image is malformed"). It matters only where
   * statements carry no extended code: FTS5 corruption is then CORRUPT_VTAB when the message names
   * it and plain CORRUPT otherwise (core's fail-open probes the index to tell). Default: true.
   */
  ftsCorruptionNamed?: boolean;
}

/** What each test gets: temporary files (removed afterwards) and connections (closed afterwards). */
export interface Context {
  /** A fresh empty directory. */
  dir(): string;
  /** `name` in a fresh directory. */
  file(name?: string): string;
  /** Open through the driver under test. */
  connect(path: string, readOnly?: boolean): SqliteConnection;
  /** A database with table t(id, v) holding one row, in the given journal mode. */
  createDb(journal?: "delete" | "wal"): string;
}

/** The extended code a failure carries: its number and name, and where it is raised. */
export interface Extended {
  /** Demanded when the binding reports codes there; without `at`, checked only when present. */
  at?: keyof ExtendedCodes;
  value: number;
  /** Default: SQLITE_<result code>. */
  name?: string;
}

/** Deterministic garbage (xorshift32), so a failure reproduces byte for byte. */
export function garbage(length: number, seed = 0x5e5510db): Uint8Array {
  const bytes = new Uint8Array(length);
  let s = seed | 0;
  for (let i = 0; i < length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    bytes[i] = s & 0xff;
  }
  return bytes;
}

/** What `fn` throws (undefined when it returns). */
export function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Whether this process can write `path` despite its mode (root can): then READONLY cannot be shown. */
export function canStillWrite(path: string): boolean {
  try {
    // Only on a file no connection has open: closing a descriptor drops the process's POSIX locks.
    closeSync(openSync(path, "r+"));
    return true;
  } catch {
    return false;
  }
}

/** Whether this process may write a file whose mode forbids it (root may). Probed on a scratch
 * file, because Deno needs --allow-sys just to ask for the uid. */
export function ignoresFileModes(): boolean {
  const dir = mkdtempSync(join(tmpdir(), "sessiondb-modes-"));
  try {
    const path = join(dir, "probe");
    writeFileSync(path, "");
    chmodSync(path, 0o444);
    return canStillWrite(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What every driver-contract suite gets. */
export interface DriverHarness {
  target: DriverContractTarget;
  /** Where the binding reports extended codes (the target's, defaults filled in). */
  extendedAt: Required<ExtendedCodes>;
  /** Register a test with a fresh context. */
  test(title: string, body: (c: Context) => void | Promise<void>): void;
  /** Demand that `thrown` is a normalized SqliteError with `code` (and `extended`); return it. */
  check(thrown: unknown, code: SqliteResultCode, extended?: Extended): SqliteError;
  /** `check` what `fn` throws. */
  fails(fn: () => unknown, code: SqliteResultCode, extended?: Extended): SqliteError;
}

/** The harness for one target. */
export function driverHarness(target: DriverContractTarget): DriverHarness {
  const { driver, it } = target;
  const extendedAt: Required<ExtendedCodes> = {
    statements: true,
    exec: true,
    open: true,
    ...target.extendedCodes,
  };

  const test = (title: string, body: (c: Context) => void | Promise<void>): void => {
    it(title, async () => {
      const root = mkdtempSync(join(tmpdir(), "sessiondb-driver-"));
      const open: SqliteConnection[] = [];
      let dirs = 0;
      const dir = (): string => {
        const path = join(root, String(dirs++));
        mkdirSync(path);
        return path;
      };
      const c: Context = {
        dir,
        file: (name = "state.db") => join(dir(), name),
        connect(path, readOnly = false) {
          const connection = driver.open(path, { readOnly });
          open.push(connection);
          return connection;
        },
        createDb(journal = "delete") {
          const path = c.file();
          const db = driver.open(path, { readOnly: false });
          db.exec(`PRAGMA journal_mode = ${journal}`);
          db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
          db.prepare("INSERT INTO t(v) VALUES (?)").run("first");
          db.close();
          return path;
        },
      };
      try {
        await body(c);
      } finally {
        for (const connection of open.reverse()) {
          try {
            connection.close();
          } catch {
            // already closed by the test
          }
        }
        rmSync(root, { recursive: true, force: true });
      }
    });
  };

  const check = (thrown: unknown, code: SqliteResultCode, extended?: Extended): SqliteError => {
    assert.ok(thrown instanceof SqliteError, `expected SQLITE_${code}, got ${String(thrown ?? "no error")}`);
    assert.equal(thrown.resultCode, code, thrown.message);
    assert.equal(thrown.code, `SQLITE_${code}`);
    const demanded = extended?.at !== undefined && extendedAt[extended.at];
    if (extended && (thrown.extendedCode !== undefined || demanded)) {
      // A name (better-sqlite3) or a number (node:sqlite, bun:sqlite, @db/sqlite's opens).
      const name = extended.name ?? `SQLITE_${code}`;
      assert.ok(
        thrown.extendedCode === name || thrown.extendedCode === extended.value,
        `extendedCode ${String(thrown.extendedCode)}, expected ${name} or ${extended.value}: ${thrown.message}`,
      );
    }
    return thrown;
  };
  const fails = (fn: () => unknown, code: SqliteResultCode, extended?: Extended): SqliteError =>
    check(caught(fn), code, extended);
  return { target, extendedAt, test, check, fails };
}
