/**
 * The part of an import both kinds of format share: one session's rows on their way to the
 * store. A session is created from the facts its producer gave (its parent must be stored first),
 * rows are priced where they record no cost, and written in chunks of `appendMessages`, each its
 * own short transaction, so other writers get the lock between two chunks.
 */
import type { MessageInput, Session } from "@sessiondb/core";
import type { MappedItem, SessionFacts } from "../mapped.js";
import { estimateUsage } from "../prices/index.js";
import type { ImportOptions, ImportResult, ImportTarget } from "./result.js";

/** Rows per appendMessages call: one short transaction each. */
export const CHUNK_ROWS = 500;
/** …and at most about this many characters of source (lines, records): each row holds its
 * source as its original besides its text, so 500 rows of 100 kB tool outputs are some 100 MB of
 * strings held at once, more as JSON. (A 200 MB transcript of 20–80 kB tool results, Node 20: the
 * resident set grew 254 MiB by rows alone, 77 MiB with this bound — as much as for a 50 MB one.) */
export const CHUNK_CHARS = 2 * 1024 * 1024;

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** One session's import: its session, the rows waiting for the next chunk. */
export class SessionRun {
  /** `file`: where the session is read from, as problems name it. */
  constructor(readonly file: string) {}
  facts: SessionFacts = {};
  session: Session | undefined;
  pending: MessageInput[] = [];
  /** Characters of the source the pending rows come from (see CHUNK_CHARS). */
  pendingChars = 0;
  lastId = 0;
  stored = 0;
  /** The session was in the store before this run. */
  existed = false;
}

export class SessionWriter {
  filesDone = 0;
  filesTotal = 0;

  constructor(
    readonly store: ImportTarget,
    readonly formatName: string,
    readonly result: ImportResult,
    readonly options: ImportOptions,
  ) {}

  /** What a mapped item adds to its run: facts (the first of each, the last title), counted
   * unknown types, priced rows. */
  take(run: SessionRun, mapped: MappedItem): void {
    if (mapped.unknown !== undefined)
      this.result.unknown[mapped.unknown] = (this.result.unknown[mapped.unknown] ?? 0) + 1;
    for (const [k, v] of Object.entries(mapped.session ?? {}))
      if (v !== undefined && (!(k in run.facts) || k === "title")) Object.assign(run.facts, { [k]: v });
    for (const row of mapped.messages) run.pending.push(this.priced(row));
  }

  /** The run's session: found, or created from the facts so far; "later" when its parent is not
   * stored yet and may still come (`last` false). */
  async open(run: SessionRun, last: boolean): Promise<"later" | "open"> {
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
        message: `parent session ${JSON.stringify(parent)} is not in the store nor in what was read; imported without a parent`,
      });
      parent = null;
    }
    run.session = await this.store.createSession({
      ...facts,
      source: this.formatName,
      parentSessionId: parent,
      metadata: metadata ?? null,
    });
    this.result.sessions.created++;
    return "open";
  }

  async flush(run: SessionRun): Promise<void> {
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
}
