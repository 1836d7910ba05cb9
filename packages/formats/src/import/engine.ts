/**
 * `importLines(store, format, roots?)` (what importFrom does with a LineFormat): a LineFormat's session files into a store. Each file is
 * streamed line by line and fed, from its first line, to one fresh mapper; its rows go to the
 * store in chunks of `appendMessages`, each its own short transaction, so other writers get the
 * lock between two chunks. Rows carry the producer's externalId: a re-import stores nothing
 * twice, and a file unchanged since the cursor in its session's metadata is skipped on a stat.
 */
import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Json } from "@sessiondb/core";
import type { LineFormat } from "../mapped.js";
import { CURSOR_KEY, cursorOf, type FileCursor, hashLine, unchanged } from "./cursor.js";
import { fileLines } from "./lines.js";
import { emptyResult, type ImportOptions, type ImportResult, type ImportTarget } from "./result.js";
import { type SessionFile, sessionFiles } from "./walk.js";
import { CHUNK_ROWS, SessionRun, SessionWriter } from "./writer.js";

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
  for (const s of await store.listSessions({
    source: format.name,
    limit: Number.MAX_SAFE_INTEGER,
    includeArchived: true,
  })) {
    const cursor = cursorOf(s.metadata);
    if (cursor) cursors.set(cursor.file, { id: s.id, cursor });
  }
  // A child whose parent is in a file not read yet waits for the end: then its parent is there.
  const later: SessionFile[] = [];
  const importer = new FileImporter(store, format, result, options);
  importer.filesTotal = files.length;
  const queue = [...files];
  for (let i = 0; i < queue.length; i++) {
    options.signal?.throwIfAborted();
    const file = queue[i] as SessionFile;
    const info = await stat(file.path);
    if (unchanged(cursors.get(file.path)?.cursor, info.size, info.mtimeMs)) result.files.unchanged++;
    else if ((await importer.run(file, info.size, info.mtimeMs, i >= files.length)) === "later") {
      later.push(file);
      if (i === files.length - 1) queue.push(...later.splice(0));
      continue;
    } else result.files.read++;
    if (i === files.length - 1) queue.push(...later.splice(0));
    importer.filesDone++;
    importer.progress();
  }
  return result;
}

class FileImporter extends SessionWriter {
  constructor(
    store: ImportTarget,
    readonly format: LineFormat,
    result: ImportResult,
    options: ImportOptions,
  ) {
    super(store, format.name, result, options);
  }

  /** Reads one file; "later" when its parent session is not stored yet and may come later. */
  async run(file: SessionFile, size: number, mtimeMs: number, last: boolean): Promise<"later" | "read"> {
    const mapper = this.format.mapper(file.relative);
    const run = new SessionRun(file.path);
    const end = { complete: 0 };
    let lastLine: string | null = null;
    for await (const line of fileLines(file.path, MAX_LINE_BYTES, end)) {
      if (line.text === undefined) {
        this.problem(file, line.position, `the line is ${line.bytes} bytes long, more than can be read`);
        continue;
      }
      if (line.text.trim() === "") continue;
      lastLine = line.text;
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch (error) {
        this.problem(file, line.position, `not JSON: ${(error as Error).message}`);
        continue;
      }
      this.take(run, mapper.map(value, line.position));
      if (run.pending.length >= CHUNK_ROWS) {
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
      lastLineHash: lastLine === null ? null : hashLine(lastLine),
    };
    const { [CURSOR_KEY]: _old, ...metadata } = run.session.metadata ?? {};
    await this.store.updateSession(run.session.id, {
      ...(run.facts.title !== undefined && run.facts.title !== run.session.title
        ? { title: run.facts.title }
        : {}),
      metadata: { ...metadata, [CURSOR_KEY]: cursor as unknown as Json },
    });
    if (run.stored > 0 && run.existed) this.result.sessions.grown++;
    return "read";
  }

  problem(file: SessionFile, line: number | undefined, message: string): void {
    this.result.problems.push({ file: file.path, ...(line !== undefined ? { line } : {}), message });
  }
}
