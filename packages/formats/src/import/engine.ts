/**
 * `importLines(store, format, roots?)` (what importFrom does with a LineFormat): its session
 * files into a store. Each file is
 * streamed line by line and fed to one mapper; its rows go to the store in chunks of
 * `appendMessages`, each its own short transaction, so other writers get the lock between two
 * chunks. Rows carry the producer's externalId: a re-import stores nothing twice. The cursor in
 * a session's metadata (cursor.ts) makes a re-import cost what is new: a file unchanged since is
 * skipped on a stat, one only appended to is read from where the last run stopped by a mapper
 * restored from the state the last run saved, and only a rewritten one is read whole again.
 */
import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Json } from "@sessiondb/core";
import type { ItemMapper, LineFormat } from "../mapped.js";
import {
  CURSOR_KEY,
  cursorOf,
  type FileCursor,
  hashLine,
  type ResumePoint,
  resumePoint,
  unchanged,
} from "./cursor.js";
import { fileLines } from "./lines.js";
import { linkParents, type Orphans } from "./parents.js";
import { emptyResult, type ImportOptions, type ImportResult, type ImportTarget } from "./result.js";
import { type SessionFile, sessionFiles } from "./walk.js";
import { CHUNK_CHARS, CHUNK_ROWS, SessionRun, SessionWriter } from "./writer.js";

/** A mapper state longer than this (as JSON) is not kept in the cursor: that file is read from its
 * first line next time rather than every import rewriting megabytes of metadata. A session's
 * state is a few dozen bytes per response and tool call, so this is tens of thousands of them. */
const MAX_STATE_CHARS = 4 * 1024 * 1024;
/** Longer lines are reported, not read: no runtime holds a string much past this. */
const MAX_LINE_BYTES = 256 * 1024 * 1024;

export async function importLines(
  store: ImportTarget,
  format: LineFormat,
  roots?: readonly string[],
  options: ImportOptions = {},
): Promise<ImportResult> {
  // The home folder is asked for only when no root is named (Deno asks a permission for it).
  const where =
    roots && roots.length > 0 ? roots : format.defaultRoots.map((r) => join(options.home ?? homedir(), r));
  const result = emptyResult();
  result.files.resumed = 0;
  result.sessions.linked = 0;
  const files: SessionFile[] = [];
  for (const root of where) {
    try {
      files.push(...(await sessionFiles(format, [root])));
    } catch (error) {
      // A default root that does not exist is no session at all; a named one is a problem.
      if (roots && roots.length > 0) result.problems.push({ file: root, message: (error as Error).message });
    }
  }
  result.files.total = files.length;
  const cursors = new Map<string, { id: string; cursor: FileCursor }>();
  const orphans: Orphans = new Map();
  for (const s of await store.listSessions({
    source: format.name,
    limit: Number.MAX_SAFE_INTEGER,
    includeArchived: true,
  })) {
    const cursor = cursorOf(s.metadata);
    if (cursor) cursors.set(cursor.file, { id: s.id, cursor });
    if (cursor?.parent && s.parentSessionId === null)
      orphans.set(s.id, { parent: cursor.parent, file: cursor.file });
  }
  // A child whose parent is in a file not read yet waits for the end: then its parent is there.
  const later: SessionFile[] = [];
  const importer = new FileImporter(store, format, result, options, orphans);
  importer.filesTotal = files.length;
  const queue = [...files];
  for (let i = 0; i < queue.length; i++) {
    options.signal?.throwIfAborted();
    const file = queue[i] as SessionFile;
    const info = await stat(file.path);
    const known = cursors.get(file.path);
    if (unchanged(known?.cursor, info.size, info.mtimeMs)) result.files.unchanged++;
    else if (
      (await importer.run(
        file,
        info.size,
        info.mtimeMs,
        i >= files.length,
        await resumed(known, info.size),
      )) === "later"
    ) {
      later.push(file);
      if (i === files.length - 1) queue.push(...later.splice(0));
      continue;
    } else result.files.read++;
    if (i === files.length - 1) queue.push(...later.splice(0));
    importer.filesDone++;
    importer.progress();
  }
  result.sessions.linked = await linkParents(store, format.name, orphans, result.problems);
  return result;
}

/** Where a changed file's known session goes on, when it was only appended to. */
async function resumed(
  known: { id: string; cursor: FileCursor } | undefined,
  size: number,
): Promise<Resume | undefined> {
  const point = await resumePoint(known?.cursor, size);
  return point && known ? { sessionId: known.id, point, parent: known.cursor.parent } : undefined;
}

/** A file read on from where the last run stopped: its session, and the parent its lines named. */
interface Resume {
  sessionId: string;
  point: ResumePoint;
  parent: string | null;
}

class FileImporter extends SessionWriter {
  constructor(
    store: ImportTarget,
    readonly format: LineFormat,
    result: ImportResult,
    options: ImportOptions,
    readonly orphans: Orphans,
  ) {
    super(store, format.name, result, options);
  }

  /** Reads one file; "later" when its parent session is not stored yet and may come later. */
  async run(
    file: SessionFile,
    size: number,
    mtimeMs: number,
    last: boolean,
    resume?: Resume,
  ): Promise<"later" | "read"> {
    const run = new SessionRun(file.path);
    const end = { complete: 0 };
    const from = resume ? this.restored(resume.point.state, file) : undefined;
    const mapper = from ?? this.format.mapper(file.relative);
    const point = from && resume ? resume.point : undefined;
    // A resumed file's session is the cursor's: the lines that named it were read before.
    if (point && resume) run.facts.id = resume.sessionId;
    // The last complete line: its hash is what the next run checks before going on after it.
    let lastLine: { text: string | undefined; start: number } | undefined = point && {
      text: undefined,
      start: point.lastLineStart,
    };
    let lines = point?.lines ?? 0;
    for await (const line of fileLines(file.path, MAX_LINE_BYTES, end, point)) {
      lastLine = { text: line.text, start: line.start };
      lines = line.position;
      if (line.text === undefined) {
        this.problem(file, line.position, `the line is ${line.bytes} bytes long, more than can be read`);
        continue;
      }
      if (line.text.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch (error) {
        this.problem(file, line.position, `not JSON: ${(error as Error).message}`);
        continue;
      }
      this.take(run, mapper.map(value, line.position));
      run.pendingChars += line.text.length;
      if (run.pending.length >= CHUNK_ROWS || run.pendingChars >= CHUNK_CHARS) {
        // The session is created at its first chunk: the facts of the lines before it (the
        // model of a turn context after the first line) are in it.
        if (!run.session && run.facts.id !== undefined && (await this.open(run, last)) === "later")
          return "later";
        if (run.session) await this.flush(run);
      }
    }
    if (end.complete < size) this.result.partial++;
    if (!run.session && run.facts.id !== undefined && (await this.open(run, last)) === "later")
      return "later";
    if (!run.session) {
      if (run.pending.length > 0)
        this.problem(file, undefined, "no line names the session's id; nothing was imported");
      return "read";
    }
    await this.flush(run);
    const cursor: FileCursor = {
      file: file.path,
      size,
      mtimeMs,
      complete: end.complete,
      // No new complete line: the one the last run ended on still is the last.
      lastLineHash:
        lastLine?.text !== undefined
          ? hashLine(lastLine.text)
          : point && lines === point.lines
            ? point.lastLineHash
            : null,
      lastLineStart: lastLine?.start ?? null,
      lines,
      state: this.saved(mapper),
      // The lines that name the parent may be in an earlier run's part of the file.
      parent: run.facts.parentSessionId ?? (point ? (resume?.parent ?? null) : null),
    };
    if (cursor.parent && run.session.parentSessionId === null)
      this.orphans.set(run.session.id, { parent: cursor.parent, file: file.path });
    const { [CURSOR_KEY]: _old, ...metadata } = run.session.metadata ?? {};
    await this.store.updateSession(run.session.id, {
      ...(run.facts.title !== undefined && run.facts.title !== run.session.title
        ? { title: run.facts.title }
        : {}),
      metadata: { ...metadata, [CURSOR_KEY]: cursor as unknown as Json },
    });
    if (run.stored > 0 && run.existed) this.result.sessions.grown++;
    if (point) this.result.files.resumed = (this.result.files.resumed ?? 0) + 1;
    return "read";
  }

  /** A mapper for the file restored to `state`, or undefined when it cannot be (the format's
   * mapper keeps no state to give, or this is not a state it reads): then the file is read whole. */
  restored(state: Json, file: SessionFile): ItemMapper<unknown> | undefined {
    const mapper = this.format.mapper(file.relative);
    if (!mapper.restore || !mapper.save) return undefined;
    try {
      mapper.restore(state);
      return mapper;
    } catch {
      return undefined;
    }
  }

  /** What the cursor keeps of the mapper's state: null when it has none or it is too big. */
  saved(mapper: ItemMapper<unknown>): Json {
    const state = mapper.save?.();
    if (state === undefined) return null;
    return JSON.stringify(state).length <= MAX_STATE_CHARS ? state : null;
  }

  problem(file: SessionFile, line: number | undefined, message: string): void {
    this.result.problems.push({ file: file.path, ...(line !== undefined ? { line } : {}), message });
  }
}
