/**
 * `importFrom(store, format, roots?)`: a LineFormat's session files into a store. Each file is
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
import type { CreateSessionInput, Json, MessageInput, Session } from "@sessiondb/core";
import type { ItemMapper, LineFormat, SessionFacts } from "../mapped.js";
import { estimateUsage } from "../prices/index.js";
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
import { type SessionFile, sessionFiles } from "./walk.js";

/** What importFrom needs of a store: a sync Store and an AsyncStore both are one. */
export interface ImportTarget {
  getSession(id: string): Session | undefined | Promise<Session | undefined>;
  createSession(input: CreateSessionInput): Session | Promise<Session>;
  updateSession(
    id: string,
    patch: { title?: string | null; metadata?: { [key: string]: Json } | null },
  ): unknown;
  appendMessages(id: string, rows: MessageInput[]): number[] | Promise<number[]>;
  getMessages(
    id: string,
    options: { last: number; includeInactive: boolean },
  ): { id: number }[] | Promise<{ id: number }[]>;
  listSessions(options: {
    source: string;
    limit: number;
    includeArchived: boolean;
  }): Session[] | Promise<Session[]>;
}

export interface ImportProblem {
  file: string;
  /** The line's number, when the problem is one line's. */
  line?: number;
  message: string;
}

export interface ImportProgress {
  files: number;
  filesTotal: number;
  messages: number;
}

export interface ImportOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
  /** The home directory the format's default roots are under (default: the user's). */
  home?: string;
  /** Usage without a cost of its own gets one estimated from the price table (default true). */
  estimateCosts?: boolean;
}

export interface ImportResult {
  /** `resumed`: of the files read, those read only from where the last run stopped. */
  files: { total: number; read: number; unchanged: number; resumed: number };
  /** `linked`: sessions read before their parent was in the store, given it now. */
  sessions: { created: number; grown: number; linked: number };
  /** Rows stored by this run (inactive ones included). */
  messages: number;
  /** Lines whose type the mapper does not know, by type: kept as inactive rows. */
  unknown: Record<string, number>;
  problems: ImportProblem[];
  /** Files whose last line had no newline yet: left for the next run. */
  partial: number;
  /** Usage records of models the price table does not have, by model: stored without a cost. */
  unpriced: Record<string, number>;
}

/** Rows per appendMessages call: one short transaction each. */
const CHUNK_ROWS = 500;
/** …and at most about this many characters of lines: each row holds its line as its original
 * besides its text, so 500 rows of 100 kB tool outputs are some 100 MB of strings held at once,
 * more as JSON. (A 200 MB transcript of 20–80 kB tool results, Node 20: the resident set grew
 * 254 MiB by rows alone, 77 MiB with this bound — as much as for a 50 MB one.) */
const CHUNK_CHARS = 2 * 1024 * 1024;
/** A mapper state longer than this (as JSON) is not kept in the cursor: that file is read from its
 * first line next time rather than every import rewriting megabytes of metadata. A session's
 * state is a few dozen bytes per response and tool call, so this is tens of thousands of them. */
const MAX_STATE_CHARS = 4 * 1024 * 1024;
/** Longer lines are reported, not read: no runtime holds a string much past this. */
const MAX_LINE_BYTES = 256 * 1024 * 1024;

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** One file's import: its session, the rows waiting for the next chunk. */
class FileRun {
  constructor(readonly file: string) {}
  facts: SessionFacts = {};
  session: Session | undefined;
  pending: MessageInput[] = [];
  /** Characters of the lines the pending rows come from. */
  pendingChars = 0;
  lastId = 0;
  stored = 0;
  /** The session was in the store before this file was read. */
  existed = false;
}

export async function importFrom(
  store: ImportTarget,
  format: LineFormat,
  roots?: readonly string[],
  options: ImportOptions = {},
): Promise<ImportResult> {
  // The home folder is asked for only when no root is named (Deno asks a permission for it).
  const where =
    roots && roots.length > 0 ? roots : format.defaultRoots.map((r) => join(options.home ?? homedir(), r));
  const result: ImportResult = {
    files: { total: 0, read: 0, unchanged: 0, resumed: 0 },
    sessions: { created: 0, grown: 0, linked: 0 },
    messages: 0,
    unknown: {},
    problems: [],
    partial: 0,
    unpriced: {},
  };
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

class FileImporter {
  filesDone = 0;
  filesTotal = 0;

  constructor(
    readonly store: ImportTarget,
    readonly format: LineFormat,
    readonly result: ImportResult,
    readonly options: ImportOptions,
    readonly orphans: Orphans,
  ) {}

  /** Reads one file; "later" when its parent session is not stored yet and may come later. */
  async run(
    file: SessionFile,
    size: number,
    mtimeMs: number,
    last: boolean,
    resume?: Resume,
  ): Promise<"later" | "read"> {
    const run = new FileRun(file.path);
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
      const mapped = mapper.map(value, line.position);
      if (mapped.unknown !== undefined)
        this.result.unknown[mapped.unknown] = (this.result.unknown[mapped.unknown] ?? 0) + 1;
      for (const [k, v] of Object.entries(mapped.session ?? {}))
        if (v !== undefined && (!(k in run.facts) || k === "title")) Object.assign(run.facts, { [k]: v });
      for (const row of mapped.messages) run.pending.push(this.priced(row));
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
    if (point) this.result.files.resumed++;
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

  /** The file's session: found, or created from the facts so far. */
  async open(run: FileRun, last: boolean): Promise<"later" | "open"> {
    const id = run.facts.id as string;
    const existing = await this.store.getSession(id);
    if (existing) {
      run.session = existing;
      run.existed = true;
      run.lastId = (await this.store.getMessages(id, { last: 1, includeInactive: true }))[0]?.id ?? 0;
      return "open";
    }
    const { ended: _ended, metadata, parentSessionId, ...facts } = run.facts;
    let parent = parentSessionId ?? null;
    if (parent !== null && !(await this.store.getSession(parent))) {
      if (!last) return "later";
      this.result.problems.push({
        file: run.file,
        message: `parent session ${JSON.stringify(parent)} is not in the store nor in the files read; imported without a parent`,
      });
      parent = null;
    }
    run.session = await this.store.createSession({
      ...facts,
      source: this.format.name,
      parentSessionId: parent,
      metadata: metadata ?? null,
    });
    this.result.sessions.created++;
    return "open";
  }

  async flush(run: FileRun): Promise<void> {
    const session = run.session as Session;
    while (run.pending.length > 0) {
      this.options.signal?.throwIfAborted();
      const rows = run.pending.splice(0, CHUNK_ROWS);
      const ids = await this.store.appendMessages(session.id, rows);
      // New rows have ids past every row the session held: the others were there already.
      let stored = 0;
      for (const id of ids) if (id > run.lastId) stored++;
      run.lastId = Math.max(run.lastId, ...ids);
      run.stored += stored;
      this.result.messages += stored;
      this.progress();
      await tick();
    }
    run.pendingChars = 0;
  }

  /** The row with its usage's cost estimated, when it records none. */
  priced(row: MessageInput): MessageInput {
    const usage = row.usage;
    if (!usage || usage.costUsd !== undefined || usage.billingMode || this.options.estimateCosts === false)
      return row;
    const estimated = estimateUsage(usage);
    if (estimated) return { ...row, usage: estimated };
    this.result.unpriced[usage.model] = (this.result.unpriced[usage.model] ?? 0) + 1;
    return row;
  }

  progress(): void {
    this.options.onProgress?.({
      files: this.filesDone,
      filesTotal: this.filesTotal,
      messages: this.result.messages,
    });
  }

  problem(file: SessionFile, line: number | undefined, message: string): void {
    this.result.problems.push({ file: file.path, ...(line !== undefined ? { line } : {}), message });
  }
}
