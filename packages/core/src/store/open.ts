/**
 * Opening a store (spec §4): the one-query fast path and the slow path that creates or upgrades
 * the schema inside one write transaction, as operations every runner shares; and what only an
 * embedded store on a local file does around them (preflight, connection pragmas, file modes,
 * how open failures on a file read), which the sync Store calls itself.
 */
import {
  JOURNAL_SIZE_LIMIT_BYTES,
  SCHEMA_VERSION,
  STATEMENT_BUSY_TIMEOUT_MS,
  STORE_FILE_MODE,
} from "../constants.js";
import type { Row, SqliteConnection } from "../driver.js";
import { all, get, local, type Op, run, writeWithoutForeignKeys } from "../engine/effects.js";
import {
  hasResultCode,
  isDiskFull,
  SchemaOutdatedError,
  SchemaTooNewError,
  StoreCorruptError,
  StoreFullError,
  StoreOpenError,
  StoreReadOnlyError,
} from "../errors.js";
import { ftsNeedsRepair } from "../fts/index.js";
import { installFts } from "../fts/install.js";
import { dirnameOf, type Host } from "../host/host.js";
import { journalMode, journalModeOf, type SqliteJournalMode } from "../journal.js";
import type { Durability } from "../model/types.js";
import { patient, policy } from "../policy/calls.js";
import { readPatience } from "../policy/state.js";
import { MARK_TEXT_WITHOUT_NUL_SQL, readProbeSql, UPSERT_META_SQL } from "../schema/ddl.js";
import { META_FINGERPRINT, META_SCHEMA_VERSION, STATE_META, TABLES } from "../schema/definition.js";
import { SCHEMA_FINGERPRINT } from "../schema/fingerprint.js";
import { runMigrations, storedSchemaVersion } from "../schema/migrations.js";
import { findMissingSchema, reconcileSchema } from "../schema/reconcile.js";
import { isInMemoryPath } from "../sqlite-path.js";

/** Refuse paths that cannot be a store before SQLite gets to create or misread anything. */
export function preflight(path: string, readOnly: boolean, host: Host | undefined): void {
  if (!host || isInMemoryPath(path)) return;
  const info = host.stat(path);
  if (info?.kind === "directory") throw new StoreOpenError(path, "it is a directory, not a database file");
  if (info && info.kind !== "file") throw new StoreOpenError(path, "it is not a regular file");
  if (!info) {
    if (readOnly)
      throw new StoreOpenError(path, "no store exists there (a read-only open never creates one)", {
        noStore: true,
      });
    const parent = host.stat(dirnameOf(path));
    if (parent?.kind !== "directory")
      throw new StoreOpenError(path, `its directory ${dirnameOf(path)} does not exist`);
    return;
  }
  if (!readOnly && !host.canWrite(path)) {
    throw new StoreReadOnlyError(
      `${path} is not writable by this process (its permissions, or a file system mounted read-only); open it with { readOnly: true } to read it`,
    );
  }
}

/** The connection settings every store sets (none reads the file). */
const CONNECTION_PRAGMAS = `PRAGMA busy_timeout = ${STATEMENT_BUSY_TIMEOUT_MS}; PRAGMA foreign_keys = ON;`;
/** The same, with what only a writer needs. */
const WRITER_PRAGMAS = `${CONNECTION_PRAGMAS} PRAGMA journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES};`;

/** Per-connection settings: none of them is DDL and none takes a write lock. One exec call,
 * because opening a current store must stay close to the cost of the raw driver's open. */
export function configureConnection(conn: SqliteConnection, readOnly: boolean): void {
  if (readOnly) {
    conn.exec(CONNECTION_PRAGMAS);
    return;
  }
  conn.exec(WRITER_PRAGMAS);
  // Acknowledged means durable: fsync on every commit, in WAL and DELETE alike. This pragma reads
  // the schema, the open's first touch of the file, so it runs as a statement: its failure then
  // carries SQLite's extended code on every binding (Deno's node:sqlite gives exec failures only
  // a message), and a -shm that a full disk cannot hold reads as STORE_FULL everywhere.
  conn.prepare("PRAGMA synchronous = FULL").run();
}

/**
 * Relax the writer's `synchronous=FULL` to NORMAL when `durability: "normal"` was asked for and
 * the open left the store in WAL mode, the one mode where NORMAL risks only the last commits
 * (to an OS crash or power loss), never the file. Any other mode keeps FULL: in DELETE mode a
 * power loss mid-commit under NORMAL can corrupt the database, and a connection that opened in
 * DELETE and later follows a sibling into WAL stays FULL too (the safe side). Returns what the
 * connection commits with.
 */
export function applyDurability(
  conn: SqliteConnection,
  asked: Durability,
  readOnly: boolean,
  mode: SqliteJournalMode,
): Durability {
  if (asked !== "normal" || readOnly || mode !== "wal") return "full";
  conn.prepare("PRAGMA synchronous = NORMAL").run();
  return "normal";
}

/** What an open found. */
export interface OpenOutcome {
  journalMode: SqliteJournalMode;
  /** Reconcile problems: non-empty means the store is behind this build. */
  warnings: string[];
  /** The index needs repair (stale, trigger-less, broken markers). */
  repairPending: boolean;
}

/** Open the schema: read-only opens probe it; writable opens take the fast path when the
 * fingerprint matches, else create or upgrade it. BUSY/LOCKED retries the whole open within
 * the open patience. */
export function* openSchema(): Op<OpenOutcome> {
  const state = yield* policy();
  if (state.readOnly) return yield* patient(openReadOnly, readPatience(state, state.patience.openMs, "open"));
  return yield* patient(openWritable, { budgetMs: state.patience.openMs, jitter: "open" });
}

/** What an open found instead of a store. With no `foreignTables`: a database with no tables at
 * all (a new file, an empty server database), which only a read-only open reports — a writable
 * one creates the store there. With `foreignTables`: another application's database (tables, but
 * none of the store's), which every open refuses, so that the store is never installed into it.
 * Each store reports it as `StoreOpenError`, naming the database its own way (`noStoreError`). */
export class NoStoreThere extends Error {
  /** The tables a foreign database has (its first few); empty when it has none. */
  readonly foreignTables: readonly string[];

  constructor(foreignTables: readonly string[] = []) {
    super(
      foreignTables.length > 0 ? "the database is not a sessiondb store" : "no sessiondb store is there yet",
    );
    this.foreignTables = foreignTables;
  }
}

/** How many of a foreign database's tables its error names. */
const FOREIGN_TABLES_SHOWN = 5;

/** What an open that found no store at `location` throws: `noStore` for a database without
 * tables, a plain open failure for another application's database. */
export function noStoreError(location: string, cause: NoStoreThere): StoreOpenError {
  const tables = cause.foreignTables;
  if (tables.length > 0) {
    const shown = tables.slice(0, FOREIGN_TABLES_SHOWN).join(", ");
    const more =
      tables.length > FOREIGN_TABLES_SHOWN ? ` and ${tables.length - FOREIGN_TABLES_SHOWN} more` : "";
    return new StoreOpenError(
      location,
      `it is another application's database, not a sessiondb store: it has tables (${shown}${more}) but none of the store's. sessiondb keeps its store in a database file of its own and never adds its tables to another one; open a new path instead. Nothing was changed`,
      { cause },
    );
  }
  return new StoreOpenError(
    location,
    "no sessiondb store is there yet: the database has none of its tables, and a read-only open never creates them (a writable open does, e.g. `sessiondb import`)",
    { cause, noStore: true },
  );
}

/** Tables an engine or tool keeps in any database, which make no database foreign: SQLite's own,
 * and those libSQL and Litestream add. */
const ENGINE_TABLES = ["sqlite\\_%", "libsql\\_%", "\\_litestream\\_%"];
const STORE_TABLE_NAMES = new Set(TABLES.map((table) => table.name));
const USER_TABLES_SQL = `SELECT name FROM sqlite_master WHERE type = 'table' AND ${ENGINE_TABLES.map(() => "name NOT LIKE ? ESCAPE '\\'").join(" AND ")} ORDER BY name`;

/** The database's tables when none of them is the store's (empty for a database without tables);
 * undefined when any store table is there. Asked only by an open that found no store's schema,
 * never on the fast path. */
function* tablesWithoutStore(): Op<string[] | undefined> {
  const names = (yield* all(USER_TABLES_SQL, ...ENGINE_TABLES)).map((row) => String(row.name));
  return names.some((name) => STORE_TABLE_NAMES.has(name)) ? undefined : names;
}

function* openReadOnly(): Op<OpenOutcome> {
  const missing = yield* findMissingSchema(readProbeSql);
  if (missing) {
    // None of the tables at all is not a store behind this build: it is no store.
    const others = yield* tablesWithoutStore();
    if (others) throw new NoStoreThere(others);
    throw new SchemaOutdatedError(missing);
  }
  return { journalMode: yield* journalMode(), warnings: [], repairPending: false };
}

function* openWritable(): Op<OpenOutcome> {
  // Fast path: one query; a current store runs no DDL and takes no write lock. It reads the
  // journal mode after the meta rows, inside the read transaction that brings this connection up
  // to date with a sibling that switched the file to WAL since we connected: the file's mode.
  const { meta, journalMode: read } = yield* readOpenFacts();
  if (meta === undefined) {
    // No state_meta: a new database, a store missing that table, or another application's
    // database, which is refused before anything (the journal mode included) is changed.
    const others = yield* tablesWithoutStore();
    if (others && others.length > 0) throw new NoStoreThere(others);
  }
  const mode = read ?? (yield* journalMode());
  yield* local({ name: "checkJournal", mode });
  refuseNewerSchema(meta);
  if (meta?.get(META_FINGERPRINT) === SCHEMA_FINGERPRINT) {
    return { journalMode: mode, warnings: [], repairPending: ftsNeedsRepair(meta) };
  }
  const result = yield* initializeSchema();
  yield* local({ name: "protectFiles" });
  // The install marks a trigger-less index stale, so repair runs on this open or the next.
  return { ...result, repairPending: true };
}

/** What an open decides on: the meta rows and the journal mode, both undefined when there is
 * no state_meta table yet (a new or foreign file). */
interface OpenFacts {
  meta: Map<string, string> | undefined;
  journalMode: SqliteJournalMode | undefined;
}

/** `mode_row` tells the mode's row from the meta rows, whatever keys state_meta holds. Every meta
 * row, not a list of keys: the table holds a handful of short rows (fingerprint, schema version,
 * FTS state, the NUL mark), and SQLite compiles and runs a plain scan of it faster than a lookup
 * by an `IN (?, …)` list, which builds a temporary index of the keys on every open. */
const OPEN_FACTS_SQL = `SELECT key, value, 0 AS mode_row FROM ${STATE_META.name} UNION ALL SELECT 'journal_mode', journal_mode, 1 FROM pragma_journal_mode`;

/** The meta rows and the journal mode in one statement: the fast path's only read. */
function* readOpenFacts(): Op<OpenFacts> {
  const rows = yield* readMetaRows(OPEN_FACTS_SQL, []);
  if (!rows) return { meta: undefined, journalMode: undefined };
  const meta = new Map<string, string>();
  let mode: SqliteJournalMode | undefined;
  for (const row of rows) {
    if (Number(row.mode_row) === 1) mode = journalModeOf(row.value);
    else meta.set(String(row.key), String(row.value ?? ""));
  }
  return { meta, journalMode: mode };
}

const SCHEMA_KEYS = [META_FINGERPRINT, META_SCHEMA_VERSION];
const SCHEMA_META_SQL = `SELECT key, value FROM ${STATE_META.name} WHERE key IN (?, ?)`;

/** The fingerprint and schema version, inside the schema transaction. */
function* readMeta(): Op<Map<string, string> | undefined> {
  const rows = yield* readMetaRows(SCHEMA_META_SQL, SCHEMA_KEYS);
  return rows && new Map(rows.map((row) => [String(row.key), String(row.value ?? "")]));
}

/** Run a read of state_meta; undefined when the table does not exist. */
function* readMetaRows(sql: string, params: readonly string[]): Op<Row[] | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return yield* all(sql, ...params);
    } catch (error) {
      // SQLite gives a missing table no code of its own (plain ERROR): ask the catalog, only on
      // this failure path, rather than read the message. The catalog read also brings a stale
      // schema up to date: a sibling that created the store after this connection last read the
      // schema (and held the lock when SQLite tried to check) makes the first try say "no such
      // table" for a table that is there, so it is read once more.
      if (!hasResultCode(error, "ERROR")) throw error;
      if (!(yield* hasTable(STATE_META.name))) return undefined;
      if (attempt >= 2) throw error;
    }
  }
}

function* hasTable(name: string): Op<boolean> {
  return (yield* get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name)) !== undefined;
}

/** Throw SchemaTooNewError when a newer sessiondb wrote this store. */
function refuseNewerSchema(meta: Map<string, string> | undefined): void {
  const version = storedSchemaVersion(meta?.get(META_SCHEMA_VERSION));
  if (version > SCHEMA_VERSION) throw new SchemaTooNewError(version, SCHEMA_VERSION);
}

/** The slow path: journal policy (outside any transaction), then schema, FTS objects and
 * migrations in one write transaction, then the journal policy once more. Returns reconcile
 * warnings; when there are any, the fingerprint is not written, so the next open tries again.
 *
 * Processes creating one store at the same moment make each other's switch to WAL fail fast
 * (not exclusively ours, so the mode is left alone). Two things keep such a store from staying
 * in DELETE mode for good, since the fast path never switches: a deferred switch withholds the
 * fingerprint (the next open takes this path again), and the policy runs once more after the
 * commit, when the siblings are usually done — which also reports the mode the file really has
 * now (a sibling may have switched it). Without a local file (a server engine) there is no
 * journal policy: the server owns its files. */
function* initializeSchema(): Op<{ journalMode: SqliteJournalMode; warnings: string[] }> {
  // New stores keep freed pages on a free list that store.vacuum() gives back in paced steps.
  // SQLite takes this only before the file's first page is written — the WAL switch below writes
  // it — and ignores it once the store has tables. A server lays out its own files.
  yield* local({ name: "incrementalVacuum" });
  const journal = yield* local({ name: "applyJournal" });
  // Foreign keys off for the init's length: a primary-key heal copies rows that may be orphans
  // and drops the old table, whose deletes must not cascade to child rows. The runner switches
  // them on the transaction's own connection (a server's transaction has a stream of its own).
  const warnings = yield* writeWithoutForeignKeys(() => schemaTransaction(journal?.deferred === true));
  const after = yield* local({ name: "applyJournal" });
  return { journalMode: after?.mode ?? (yield* journalMode()), warnings };
}

function* schemaTransaction(journalDeferred: boolean): Op<string[]> {
  const meta = yield* readMeta();
  refuseNewerSchema(meta);
  const found = yield* reconcileSchema();
  yield* installFts();
  yield* runMigrations(storedSchemaVersion(meta?.get(META_SCHEMA_VERSION)));
  // A new store (no state_meta before this transaction) gets the mark, once in its life, and
  // only with every text-NUL trigger in place (no warning): they keep it true from then on.
  if (meta === undefined && found.length === 0) yield* run(MARK_TEXT_WITHOUT_NUL_SQL);
  if (found.length === 0 && !journalDeferred)
    yield* run(UPSERT_META_SQL, META_FINGERPRINT, SCHEMA_FINGERPRINT);
  return found;
}

/** Make the store files private, by path (never by opening them: closing any descriptor of the
 * database file drops every POSIX lock SQLite holds in this process). */
export function protectFiles(path: string, host: Host | undefined): void {
  if (!host || isInMemoryPath(path)) return;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      host.chmod(`${path}${suffix}`, STORE_FILE_MODE);
    } catch {
      // Not ours to change (another user's file): permissions are advisory here.
    }
  }
}

/** True when a rollback journal sits next to the store: in DELETE mode, a writer that died
 * mid-transaction leaves it "hot", and only a writable connection can roll it back. A live
 * writer's journal is there too: ask only after SQLite answered READONLY, which it gives for a
 * hot journal alone (a live writer's lock reads as BUSY). */
export function hasRollbackJournal(path: string, host: Host | undefined): boolean {
  if (!host) return true;
  const journal = host.stat(`${path}-journal`);
  return journal?.kind === "file" && journal.size > 0;
}

/** Why a read-only connection met SQLITE_READONLY, and what to do. */
export function readOnlyBlockedReason(path: string, host: Host | undefined): string {
  return hasRollbackJournal(path, host)
    ? `a writer that stopped mid-transaction left a rollback journal (${path}-journal) that only a writable connection can roll back; open the store writable once (any writing command does it), then read again`
    : `a read-only open of a WAL store needs its -wal and -shm files, which do not exist and cannot be created in ${dirnameOf(path)} (not writable by this user, or a read-only mount); open it while a writer has it open, or make the directory writable`;
}

/** SQLite's first -shm region: what a WAL store's first reader must be able to allocate. */
const SHM_REGION_BYTES = 32 * 1024;

/**
 * Whether `error` means the disk or quota holding the store is full. A binding that reports only
 * SQLite's message (Deno's @db/sqlite; Deno's node:sqlite for exec) turns a -shm that cannot be
 * allocated into a bare IOERR; then the file system is asked whether a region that size fits.
 */
export function diskFullAt(error: unknown, path: string, host: Host | undefined): boolean {
  if (isDiskFull(error)) return true;
  if (!hasResultCode(error, "IOERR") || error.extendedCode !== undefined) return false;
  if (!host || isInMemoryPath(path)) return false;
  return !host.hasRoom(dirnameOf(path), SHM_REGION_BYTES);
}

/** Map errors from the open sequence to the public error types. */
export function openFailure(
  path: string,
  error: unknown,
  readOnly: boolean,
  host: Host | undefined,
): unknown {
  if (error instanceof NoStoreThere) return noStoreError(path, error);
  // A read-only connection that cannot get what a WAL read needs: READONLY, or CANTOPEN for a
  // file that is there (its -shm cannot be made, e.g. on a read-only mount).
  const blocked =
    hasResultCode(error, "READONLY") ||
    (hasResultCode(error, "CANTOPEN") && host?.stat(path)?.kind === "file");
  if (readOnly && blocked) {
    return new StoreOpenError(path, `${readOnlyBlockedReason(path, host)} (${error.message})`, {
      cause: error,
    });
  }
  if (hasResultCode(error, "CANTOPEN"))
    return new StoreOpenError(path, `SQLite cannot open it (${error.message})`, { cause: error });
  if (hasResultCode(error, "NOTADB"))
    return new StoreOpenError(path, "it is not a SQLite database (SQLITE_NOTADB)", { cause: error });
  if (hasResultCode(error, "PERM"))
    return new StoreOpenError(path, `permission denied (${error.message})`, { cause: error });
  if (hasResultCode(error, "CORRUPT")) return new StoreCorruptError(error.message, { cause: error });
  if (diskFullAt(error, path, host)) {
    return new StoreFullError(`opening ${JSON.stringify(path)}`, {
      cause: error,
      outcome:
        "failed: SQLite needs room beside the store for its -shm file (WAL) or journal, and a new or older store for its schema",
    });
  }
  if (hasResultCode(error, "READONLY"))
    return new StoreReadOnlyError(`${path} cannot be written (${error.message})`, { cause: error });
  if ((error as { name?: unknown } | null)?.name === "NotCapable")
    return denoPermissionError(path, error as Error, readOnly);
  return error;
}

/** Deno's permissions refused the open (its NotCapable error): no SQLite failure, nothing wrong
 * with the file. Without write access a writable open cannot go on, but a read-only one can. */
function denoPermissionError(path: string, error: Error, readOnly: boolean): unknown {
  if (!readOnly && /write access/i.test(error.message)) {
    return new StoreReadOnlyError(
      `Deno was not given write access to ${path} (${error.message}); run with --allow-write for its folder, or open the store with { readOnly: true } to read it`,
      { cause: error },
    );
  }
  return new StoreOpenError(path, `Deno's permissions refused it (${error.message})`, { cause: error });
}
