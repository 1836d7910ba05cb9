/**
 * Which files belong to SQLite: told by their first bytes (a database, a write-ahead log, a
 * rollback journal) or by their name (a companion of an existing database: its `-wal`, `-shm`,
 * `-journal`, sessiondb's FTS admission lock and its files). One rule for every place that writes
 * a file a user named — `store.backup`, `repairStore`'s `output`, the CLI's `export --output`:
 * replacing any of them under a database that uses it loses or corrupts that database.
 */
import type { PathInfo } from "../host/host.js";
import { admissionLockPath, holderPath } from "../locks/admission.js";

/** What `sqliteFileOf` needs of the file system (a `Host` has both). */
export interface FileReader {
  stat(path: string): PathInfo | undefined;
  /** Up to `length` bytes from `offset` (fewer at the end of the file). */
  readBytes(path: string, offset: number, length: number): Uint8Array;
}

/** What a SQLite file is: by its content, or by its name next to the database it belongs to;
 * `description` says it in a phrase ("a SQLite write-ahead log"). */
export type SqliteFile =
  | { kind: "database" | "write-ahead log" | "rollback journal"; description: string }
  | { kind: "companion"; database: string; label: string; description: string };

type ContentKind = "database" | "write-ahead log" | "rollback journal";

const MAGIC: Array<{ bytes: number[]; kind: ContentKind }> = [
  { bytes: [...new TextEncoder().encode("SQLite format 3"), 0], kind: "database" },
  { bytes: [0x37, 0x7f, 0x06, 0x82], kind: "write-ahead log" },
  { bytes: [0x37, 0x7f, 0x06, 0x83], kind: "write-ahead log" },
  { bytes: [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7], kind: "rollback journal" },
];

/** The files SQLite itself keeps next to the database `db`. */
function sqliteCompanionsOf(db: string): Array<{ path: string; label: string }> {
  return [
    { path: `${db}-wal`, label: "its write-ahead log" },
    { path: `${db}-shm`, label: "its shared-memory index" },
    { path: `${db}-journal`, label: "its rollback journal" },
  ];
}

/** The files SQLite and sessiondb keep next to the database `db`, with what each one is. */
export function companionsOf(db: string): Array<{ path: string; label: string }> {
  const lock = admissionLockPath(db);
  return [
    ...sqliteCompanionsOf(db),
    { path: lock, label: "its FTS admission lock" },
    { path: `${lock}-journal`, label: "its FTS admission lock's journal" },
    { path: holderPath(db), label: "its FTS admission lock's holder record" },
  ];
}

/** The kind of SQLite file the regular file at `path` begins like, if any. A file that cannot be
 * read throws the reader's error: what it is cannot be told, and a caller must not replace it. */
function contentKind(reader: FileReader, path: string): ContentKind | undefined {
  if (reader.stat(path)?.kind !== "file") return undefined;
  const head = reader.readBytes(path, 0, 16);
  return MAGIC.find(({ bytes }) => head.length >= bytes.length && bytes.every((b, i) => head[i] === b))?.kind;
}

/** What SQLite file `path` (existing or not) is, or undefined when it is none: a file that begins
 * like a database, WAL or journal, or one named like a companion of an existing database. */
export function sqliteFileOf(reader: FileReader, path: string): SqliteFile | undefined {
  const kind = contentKind(reader, path);
  if (kind) return { kind, description: `a SQLite ${kind}` };
  for (const { path: suffix, label } of companionsOf("")) {
    if (!path.endsWith(suffix) || path.length === suffix.length) continue;
    const database = path.slice(0, -suffix.length);
    if (contentKind(reader, database) === "database") {
      return {
        kind: "companion",
        database,
        label,
        description: `a file of the SQLite database ${database} (${label})`,
      };
    }
  }
  return undefined;
}

/** SQLite's own companion files (`-wal`, `-shm`, `-journal`) that exist beside `path`. SQLite pairs
 * them with whatever database is at `path` when it opens it: a WAL or hot journal left by another
 * database is replayed into it. */
export function sqliteLogsBeside(reader: FileReader, path: string): Array<{ path: string; label: string }> {
  return sqliteCompanionsOf(path).filter((companion) => reader.stat(companion.path) !== undefined);
}
