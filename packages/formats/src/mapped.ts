/**
 * What every shape module of this package produces: one item of a foreign shape (a Claude Code
 * transcript line, an OpenAI Responses item, an AI SDK UIMessage, a Codex rollout line, an
 * opencode part, a Hermes row) mapped to what sessiondb stores. Written once per shape and used
 * by the framework bindings and the importers alike.
 */
import type { CreateSessionInput, Json, MessageInput } from "@sessiondb/core";
import type { SqliteConnection } from "@sessiondb/core/driver";

/** Facts about the session an item belongs to, as far as the item tells them. */
export type SessionFacts = Partial<Omit<CreateSessionInput, "metadata">> & {
  metadata?: { [key: string]: Json };
  /** When the producer says the session ended. */
  ended?: { reason: string; at?: number };
};

/** One foreign item as sessiondb rows. */
export interface MappedItem {
  /** The rows the item becomes, in order (usually one). Each carries `externalId` (unique in its
   * session, so a second write stores nothing new) and `original` (the item exactly as given,
   * so nothing the shape carries is lost). An item that is no message (a summary, a snapshot, a
   * type this mapper does not know) is one inactive row (`active: false`): kept and given back,
   * never shown as part of the conversation. */
  messages: MessageInput[];
  /** What the item says about its session (first line: id, cwd, model; later: a title). */
  session?: SessionFacts;
  /** Set when the item's type is not one the mapper knows: the type's name, for counting. It is
   * still stored (an inactive row with its original). */
  unknown?: string;
  /** Set when part of the item could not be read (a column that should hold JSON does not):
   * the importer reports it with the item's place, and the rows are stored all the same. */
  problem?: string;
}

/** A mapper for one session's items in order: stateful where the shape needs it (usage that
 * repeats across lines, tool calls paired with results that come later). */
export interface ItemMapper<Item = unknown> {
  map(item: Item, position: number): MappedItem;
  /** The state the mapper has built from the items mapped so far, as JSON: what a mapper made
   * later needs, through `restore`, to go on with the next item as this one would. A mapper
   * without it is always fed a session from its first item. */
  save?(): Json;
  /** Takes a state `save` gave (of a mapper for the same session file); throws on one it cannot
   * read, and the caller then feeds it from the first item instead. */
  restore?(state: Json): void;
}

/**
 * A format whose sessions are JSON-lines files under a folder (Claude Code, Codex): what the
 * importer needs from its shape module. The importer walks the roots, reads each session file
 * line by line (a broken line is reported with its file and line number, a half-written last
 * line is left for the next run), and feeds every parsed line of a file, in order, to one mapper:
 * a mapper may keep state across a file's lines. A file read before and only appended to since is
 * read from where the last run stopped, by a mapper given the state the last one saved; any
 * other file (and every file of a mapper without `save`) is read from its first line.
 */
export interface LineFormat {
  /** The format's name, as `sessiondb import --from <name>` takes it. */
  readonly name: string;
  /** Where the producer keeps its sessions, relative to the home directory. */
  readonly defaultRoots: readonly string[];
  /** Whether a file (its path relative to the root, `/`-separated) is one of its session files. */
  isSessionFile(relativePath: string): boolean;
  /** A mapper for one session file's lines (the path relative to the root may say whose
   * subagent the file is); `position` is the line's 1-based number in the file. */
  mapper(relativePath: string): ItemMapper<unknown>;
}

/** One row of a producer's database, as a DatabaseFormat's session yields it for its mapper. */
export interface DatabaseRecord {
  /** The table the row is from, and its id there: where a problem with it is reported. */
  table: string;
  rowId: string | number;
  /** The row as the format read it (its columns; the format's own shape). */
  value: unknown;
}

/** One session of a producer's database, as a DatabaseFormat lists it. */
export interface DatabaseSession {
  /** The producer's id of the session: the stored session's id. */
  readonly id: string;
  /** What the producer's session row says (id, cwd, model, parent, title, end, metadata). */
  readonly facts: SessionFacts;
  /** A JSON value that changes whenever the session gains or changes records (Hermes: its
   * largest message id, its end and its usage totals). The importer keeps it in the session's
   * metadata (`sessiondbImport`); a session whose mark is still the kept one is skipped without
   * reading its records. */
  readonly mark: Json;
  /** The session's records in order, read page by page. `since` is the mark the last import
   * kept, if any: a format may begin after what it covers (Hermes: messages past its largest
   * id, usage past its totals); records it yields again are skipped by their externalId. */
  records(since: Json | undefined): Iterable<DatabaseRecord>;
}

/** What is wrong with one session while a format lists them: the file and what. */
export interface ListingProblem {
  file: string;
  message: string;
}

/** Sessions a DatabaseFormat reads from a folder of files instead of a database. */
export interface SessionFolder {
  /** The folder of session files a root is or holds, or undefined when it has none. */
  find(root: string): string | undefined;
  /** The folder's sessions, as `sessions` lists a database's (their records read the files). */
  sessions(folder: string, problems: ListingProblem[]): Iterable<DatabaseSession>;
}

/**
 * A format whose sessions are rows of the producer's SQLite database (Hermes, opencode): what
 * the importer needs from its shape module. The importer opens each database read-only through
 * the driver its caller gives (so this package stays free of any one runtime's binding), lists
 * its sessions, and feeds the records of each session that changed, in order, to one fresh
 * mapper. Reading is synchronous, as every driver is; the importer writes to the store between
 * two sessions and two chunks of rows, never inside a read.
 */
export interface DatabaseFormat {
  /** Tells a DatabaseFormat from a LineFormat. */
  readonly kind: "database";
  /** The format's name, as `sessiondb import --from <name>` takes it. */
  readonly name: string;
  /** Where the producer keeps its database, relative to the home directory. */
  readonly defaultRoots: readonly string[];
  /** The database's file name: what is opened when a root is a folder. */
  readonly fileName: string;
  /** Roots the producer's own environment variables name instead of the default ones (Hermes:
   * `$HERMES_HOME/state.db`), or undefined when none is set. */
  rootsFromEnv?(env: { [name: string]: string | undefined }): string[] | undefined;
  /** The database's sessions, parents before their children where the format can tell. Throws
   * (a clear Error) when the database is not the producer's; a SqliteError passes through. What
   * is wrong with one session while listing (a file it names that is broken) goes to `problems`,
   * and the rest are listed. */
  sessions(db: SqliteConnection, problems: ListingProblem[]): Iterable<DatabaseSession>;
  /** For a producer that kept its sessions in files before it had a database (opencode's JSON
   * `storage/` folder): such a folder, read when a root holds no database. */
  readonly folder?: SessionFolder;
  /** A mapper for one session's records; `position` is the record's 1-based place in this read. */
  mapper(session: DatabaseSession): ItemMapper<DatabaseRecord>;
}
