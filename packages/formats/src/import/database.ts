/**
 * `importDatabase(store, format, roots?, { driver })` (what importFrom does with a
 * DatabaseFormat): the sessions of a producer's SQLite database into a store. Each database is
 * opened read-only through the caller's driver and its sessions are listed first (so a child
 * is read after its parent, whichever database holds it); a session whose mark is still the one
 * its stored session keeps in `metadata.sessiondbImport` is skipped without reading its records.
 * Any other is read record by record into one fresh mapper, its rows stored in the chunks the
 * line importer uses, with the producer's externalIds: nothing is stored twice. A root with no
 * database is read from the format's folder of session files when it has one (`format.folder`):
 * its sessions go the same way, the folder standing where the database would.
 */
import { InvalidInputError, type Json } from "@sessiondb/core";
import type { SqliteConnection } from "@sessiondb/core/driver";
import type { DatabaseFormat, DatabaseSession } from "../mapped.js";
import { CURSOR_KEY } from "./cursor.js";
import { emptyResult, type ImportOptions, type ImportResult, type ImportTarget } from "./result.js";
import { databaseFile, defaultRoots, fromSource, openSource, readError, SourceError } from "./source.js";
import { CHUNK_ROWS, SessionRun, SessionWriter } from "./writer.js";

/** What the stored session keeps of the last import: the database and the session's mark. */
interface DatabaseCursor {
  database: string;
  mark: Json;
}

/** A session listed, with the database (or folder of session files) it is in. */
interface Listed {
  database: string;
  session: DatabaseSession;
}

export async function importDatabase(
  store: ImportTarget,
  format: DatabaseFormat,
  roots?: readonly string[],
  options: ImportOptions = {},
): Promise<ImportResult> {
  const driver = options.driver;
  if (driver === undefined || typeof driver?.open !== "function")
    throw new InvalidInputError(
      "options.driver",
      `the ${format.name} format is read from a SQLite database: pass the runtime's driver (resolveDriver() of @sessiondb/node, @sessiondb/bun or @sessiondb/deno)`,
    );
  const named = roots !== undefined && roots.length > 0;
  const result = emptyResult();
  result.sessions.unchanged = 0;
  const open: SqliteConnection[] = [];
  try {
    const listed: Listed[] = [];
    for (const root of named ? roots : defaultRoots(format, options)) {
      // A root's database, else (a producer that kept files before it had one) its folder.
      const file = databaseFile(root, format);
      const folder = file === undefined ? format.folder?.find(root) : undefined;
      const database = file ?? folder;
      if (database === undefined) {
        // A default database that does not exist is no session at all; a named one is a problem.
        if (named) result.problems.push({ file: root, message: "no such file or folder" });
        continue;
      }
      result.files.total++;
      try {
        let sessions: Iterable<DatabaseSession>;
        if (folder !== undefined && format.folder !== undefined)
          sessions = format.folder.sessions(folder, result.problems);
        else {
          const db = openSource(driver, database);
          open.push(db);
          sessions = format.sessions(db, result.problems);
        }
        // Listed whole before anything is stored: a source that cannot be read stores nothing.
        for (const session of sessions) listed.push({ database, session });
        result.files.read++;
      } catch (error) {
        result.problems.push({ file: database, message: readError(error, format) });
      }
    }
    const cursors = await storedCursors(store, format);
    const importer = new DatabaseImporter(store, format, result, options);
    importer.filesTotal = importer.filesDone = result.files.read;
    importer.sessionsTotal = listed.length;
    const failed = new Set<string>();
    for (const { database, session } of parentsFirst(listed)) {
      options.signal?.throwIfAborted();
      if (failed.has(database)) continue;
      if (sameMark(cursors.get(session.id), session.mark)) result.sessions.unchanged++;
      else
        try {
          await importer.run(database, session, cursors.get(session.id)?.mark);
        } catch (error) {
          if (!(error instanceof SourceError)) throw error;
          // The database went away or got locked while read: what came in is kept, and the
          // sessions not done are read again next time (their marks were not kept).
          failed.add(database);
          result.problems.push({ file: database, message: readError(error.cause, format) });
        }
      importer.sessionsDone++;
      importer.progress();
    }
  } finally {
    for (const db of open) db.close();
  }
  return result;
}

class DatabaseImporter extends SessionWriter {
  sessionsDone = 0;
  sessionsTotal = 0;

  constructor(
    store: ImportTarget,
    readonly format: DatabaseFormat,
    result: ImportResult,
    options: ImportOptions,
  ) {
    super(store, format.name, result, options);
  }

  /** Reads one session's records (after what `since` covers) into the store. */
  async run(database: string, session: DatabaseSession, since: Json | undefined): Promise<void> {
    const run = new SessionRun(database);
    run.facts = { ...session.facts, id: session.id };
    // Sessions come parents first: a parent still missing is in no database read.
    await this.open(run, true);
    const mapper = this.format.mapper(session);
    let position = 0;
    for (const record of fromSource(() => session.records(since))) {
      const mapped = mapper.map(record, ++position);
      if (mapped.problem !== undefined)
        this.result.problems.push({
          file: database,
          table: record.table,
          row: record.rowId,
          message: mapped.problem,
        });
      this.take(run, mapped);
      if (run.pending.length >= CHUNK_ROWS) await this.flush(run);
    }
    await this.flush(run);
    const stored = run.session ?? (await this.store.getSession(session.id));
    if (!stored) return;
    const { [CURSOR_KEY]: _old, ...metadata } = stored.metadata ?? {};
    const cursor: DatabaseCursor = { database, mark: session.mark };
    const title = run.facts.title;
    await this.store.updateSession(stored.id, {
      ...(title !== undefined && title !== stored.title ? { title } : {}),
      metadata: { ...metadata, ...run.facts.metadata, [CURSOR_KEY]: cursor as unknown as Json },
    });
    const ended = run.facts.ended;
    if (ended && stored.endedAt === null)
      await this.store.endSession(stored.id, ended.reason, ended.at !== undefined ? { at: ended.at } : {});
    if (run.stored > 0 && run.existed) this.result.sessions.grown++;
  }

  override progress(): void {
    this.options.onProgress?.({
      files: this.filesDone,
      filesTotal: this.filesTotal,
      messages: this.result.messages,
      sessions: this.sessionsDone,
      sessionsTotal: this.sessionsTotal,
    });
  }
}

/** The cursors the format's stored sessions keep, by session id. */
async function storedCursors(
  store: ImportTarget,
  format: DatabaseFormat,
): Promise<Map<string, DatabaseCursor>> {
  const cursors = new Map<string, DatabaseCursor>();
  for (const s of await store.listSessions({
    source: format.name,
    limit: Number.MAX_SAFE_INTEGER,
    includeArchived: true,
  })) {
    const c = s.metadata?.[CURSOR_KEY] as { database?: unknown; mark?: Json } | undefined | null;
    if (c && typeof c === "object" && typeof c.database === "string" && "mark" in c)
      cursors.set(s.id, { database: c.database, mark: c.mark ?? null });
  }
  return cursors;
}

function sameMark(cursor: DatabaseCursor | undefined, mark: Json): boolean {
  return cursor !== undefined && JSON.stringify(cursor.mark) === JSON.stringify(mark);
}

/** The sessions in their order, except that a session's parent (when listed) comes before it. */
function parentsFirst(listed: Listed[]): Listed[] {
  const byId = new Map(listed.map((l) => [l.session.id, l]));
  const done = new Set<string>();
  const ordered: Listed[] = [];
  const visit = (l: Listed, path: Set<string>) => {
    if (done.has(l.session.id) || path.has(l.session.id)) return;
    path.add(l.session.id);
    const parent = l.session.facts.parentSessionId;
    const p = parent ? byId.get(parent) : undefined;
    if (p) visit(p, path);
    done.add(l.session.id);
    ordered.push(l);
  };
  for (const l of listed) visit(l, new Set());
  return ordered;
}
