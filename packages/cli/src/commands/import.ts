import * as fs from "node:fs";
import {
  type CreateSessionInput,
  companionsOf,
  type ImportSessionInput,
  type MessageInput,
} from "@sessiondb/core";
import { defineCommand } from "../command.js";
import type { OptionDefs } from "../define.js";
import { EXIT, ExitError, UsageError } from "../exit.js";
import { count, plural, print, printJson } from "../format.js";
import { Interrupt } from "../interrupt.js";
import { type ParsedLine, parseLine, type SessionRecord } from "../jsonl.js";
import { numberedLines, readChunks, TooLongLine } from "../lines.js";
import { localStoreFile, openFor } from "../open.js";
import {
  fileError,
  refuseDatabases,
  refuseStoreFiles,
  refuseStreamedDatabases,
  resolvePath,
  SQLITE_HEAD_BYTES,
} from "../paths.js";
import { Progress } from "../progress.js";
import type { CliStore } from "../server.js";
import { visible } from "../visible.js";

interface LineProblem {
  line: number;
  sessionId?: string;
  message: string;
}

/** What pass 1 learns about each session named in the file. */
interface SessionPlan {
  recordLine?: number;
  firstLine: number;
  lastLine: number;
  messages: number;
  errors: LineProblem[];
}

interface Plan {
  sessions: Map<string, SessionPlan>;
  /** Problems on lines that belong to no session (before any session record). */
  orphans: LineProblem[];
  ignored: Map<string, number>;
  /** Non-blank lines read. */
  lines: number;
}

/** Key for a session record without a usable id: control characters never occur in real ids. */
const unnamed = (line: number) => `\u0000line ${line}`;
const isUnnamed = (key: string) => key.startsWith("\u0000");

/** What the import reads, once per pass: a regular file by its path, or the bytes of a stream that
 * can be read only once (stdin, a FIFO), kept as they came for the second pass. */
type ImportSource = string | readonly Buffer[];

/** The numbered non-blank lines of the source, parsed; one too long to read is a bad line. */
async function* sourceLines(source: ImportSource): AsyncGenerator<[number, ParsedLine]> {
  for await (const [line, text] of numberedLines(
    typeof source === "string" ? fs.createReadStream(source) : source,
  ))
    yield [line, text instanceof TooLongLine ? { kind: "error", message: text.message } : parseLine(text)];
}

/** Remove the store file an import created and wrote nothing to, with the files SQLite and
 * sessiondb made beside it. */
function removeEmptyStore(storeFile: string): void {
  for (const { path } of companionsOf(storeFile)) fs.rmSync(path, { force: true });
  fs.rmSync(storeFile, { force: true });
}

/** Tracks which session each line belongs to, the same way in both passes. */
class Attribution {
  current: string | undefined;

  owner(line: number, parsed: ParsedLine): string | undefined {
    if (parsed.kind === "session") {
      this.current = parsed.record.id;
      return this.current;
    }
    if (parsed.kind === "error" && parsed.startsSession) {
      this.current = parsed.sessionId ?? unnamed(line);
      return this.current;
    }
    if (parsed.kind === "message") return parsed.sessionId ?? this.current;
    return parsed.sessionId ?? this.current;
  }
}

/** Pass 1: parse and check every line; nothing is written. */
async function plan(source: ImportSource): Promise<Plan> {
  const sessions = new Map<string, SessionPlan>();
  const orphans: LineProblem[] = [];
  const ignored = new Map<string, number>();
  const attribution = new Attribution();
  let lines = 0;
  for await (const [line, parsed] of sourceLines(source)) {
    lines++;
    const owner = attribution.owner(line, parsed);
    if (parsed.kind !== "error")
      for (const key of parsed.ignored) ignored.set(key, (ignored.get(key) ?? 0) + 1);
    if (owner === undefined) {
      const message =
        parsed.kind === "error"
          ? parsed.message
          : "message before any session record, and without a session_id";
      orphans.push({ line, message });
      continue;
    }
    let s = sessions.get(owner);
    if (!s) {
      s = { firstLine: line, lastLine: line, messages: 0, errors: [] };
      sessions.set(owner, s);
    }
    s.lastLine = line;
    const sessionId = isUnnamed(owner) ? undefined : owner;
    const problem = (message: string) =>
      s.errors.push({ line, ...(sessionId ? { sessionId } : {}), message });
    if (parsed.kind === "error") {
      if (parsed.startsSession && s.recordLine === undefined) s.recordLine = line;
      problem(parsed.message);
    } else if (parsed.kind === "session") {
      if (s.recordLine !== undefined)
        problem(
          `a second session record for ${JSON.stringify(owner)} (the first is on line ${s.recordLine})`,
        );
      else s.recordLine = line;
    } else {
      s.messages++;
    }
  }
  for (const [id, s] of sessions) {
    if (s.recordLine === undefined) {
      s.errors.unshift({
        line: s.firstLine,
        sessionId: id,
        message: `no session record for session ${JSON.stringify(id)} in the file`,
      });
    }
  }
  return { sessions, orphans, ignored, lines };
}

/** readChunks' check that a stream (stdin, a FIFO) is no SQLite file: refused by its first bytes,
 * before the rest is read. */
function notDatabase(what: string, intact: string) {
  return {
    headBytes: SQLITE_HEAD_BYTES,
    check: (head: Buffer) => refuseStreamedDatabases(head, what, intact),
  };
}

/**
 * What to read: a regular file by its path (read once per pass); stdin or anything else that can
 * be read only once (a FIFO, `<(…)`), held in memory as its bytes. The file is checked before the
 * store is opened: never the store or one of its files (reading one while the store is open would
 * drop this process's locks on it), never a SQLite database.
 */
async function importSource(file: string, store: string | undefined): Promise<ImportSource> {
  const intact = "nothing was imported";
  if (file === "-") {
    let stdin: fs.Stats | undefined;
    try {
      stdin = fs.fstatSync(0);
    } catch {
      // No stdin at all: it reads as empty.
    }
    if (stdin?.isFile()) refuseStoreFiles({ stat: stdin }, store, "stdin", intact);
    return readChunks(process.stdin, notDatabase("stdin", intact));
  }
  try {
    const resolved = resolvePath(file);
    // A missing file fails as the file system reports it (ENOENT, exit 2), as a missing folder
    // on its way does.
    const target = { ...resolved, stat: resolved.stat ?? fs.statSync(resolved.real) };
    if (target.stat.isDirectory())
      throw new ExitError(EXIT.USAGE, `${file} is a folder; ${intact}. Name a JSONL file.`, "EISDIR");
    refuseStoreFiles(target, store, file, intact);
    refuseDatabases(target, file, intact);
    if (target.stat.isFile()) return target.real;
    return await readChunks(fs.createReadStream(target.real), notDatabase(file, intact));
  } catch (error) {
    throw fileError(error, `cannot read ${file}`, intact);
  }
}

interface Group {
  record: SessionRecord;
  input: CreateSessionInput;
  recordLine: number;
  messages: Array<{ line: number; input: MessageInput }>;
}

interface Outcome {
  imported: number;
  resumed: number;
  skipped: string[];
  failed: number;
  messages: number;
  errors: LineProblem[];
  warnings: LineProblem[];
}

function unlinkedWarning(line: number, sessionId: string, parent: string): LineProblem {
  return {
    line,
    sessionId,
    message: `parent session ${JSON.stringify(parent)} is neither in the store nor imported from the file; imported without a parent`,
  };
}

/** A session handed to the store, for reporting its problems by line. */
interface Handed {
  id: string;
  recordLine: number;
  messageLines: number[];
  parent: string | undefined;
}

/**
 * Pass 2: the sessions whose lines were all good, in file order, written by
 * `store.importSessions` — whole, in paced steps that let agents writing meanwhile in between,
 * a session the store refuses left out alone, sessions already stored skipped, a child imported
 * after a parent that comes later in the file.
 */
class Importer {
  readonly outcome: Outcome = {
    imported: 0,
    resumed: 0,
    skipped: [],
    failed: 0,
    messages: 0,
    errors: [],
    warnings: [],
  };
  readonly #store: CliStore;
  readonly #plan: Plan;
  /** What was handed to the store, by the item's index. */
  readonly #handed: Handed[] = [];
  readonly #progress: Progress | undefined;
  /** Sessions dealt with so far (imported, skipped or failed). */
  sessionsDone = 0;

  constructor(store: CliStore, plan: Plan, progress?: Progress) {
    this.#store = store;
    this.#plan = plan;
    this.#progress = progress;
  }

  async run(source: ImportSource, signal: AbortSignal): Promise<void> {
    const total = [...this.#plan.sessions.values()].reduce(
      (n, s) => n + (s.errors.length ? 0 : s.messages),
      0,
    );
    const result = await this.#store.importSessions(this.#items(source), {
      signal,
      onProgress: (p) => {
        this.sessionsDone = p.sessions;
        this.#progress?.update(p.messages, total);
      },
    });
    const o = this.outcome;
    Object.assign(o, {
      imported: result.imported,
      resumed: result.resumed,
      skipped: result.skipped,
      failed: result.failed.length,
      messages: result.messages,
    });
    for (const { index, error } of result.failed) {
      const handed = this.#handed[index] as Handed;
      const at = /^messages\[(\d+)\]/.exec(error.field ?? "");
      const line = at ? (handed.messageLines[Number(at[1])] ?? handed.recordLine) : handed.recordLine;
      const message = error.message.replace(/ Nothing was stored\.$/, "");
      o.errors.push({ line, sessionId: handed.id, message });
    }
    const lines = new Map(this.#handed.map((h) => [h.id, h]));
    for (const id of result.unlinked) {
      const handed = lines.get(id) as Handed;
      o.warnings.push(unlinkedWarning(handed.recordLine, id, handed.parent as string));
    }
    o.warnings.sort((a, b) => a.line - b.line);
  }

  /** Whether session `id` is in the store. An id the store refuses counts as there: the import
   * then refuses it under its own field name ("parentSessionId"). */
  async #stored(id: string): Promise<boolean> {
    try {
      return (await this.#store.getSession(id)) !== undefined;
    } catch (error) {
      if ((error as { code?: unknown }).code === "INVALID_INPUT") return true;
      throw error;
    }
  }

  /** The good sessions, each as soon as its last line is read. */
  async *#items(source: ImportSource): AsyncGenerator<ImportSessionInput> {
    const groups = new Map<string, Partial<Group> & Pick<Group, "messages">>();
    const attribution = new Attribution();
    for await (const [line, parsed] of sourceLines(source)) {
      const owner = attribution.owner(line, parsed);
      const info = owner === undefined ? undefined : this.#plan.sessions.get(owner);
      if (owner === undefined || !info || info.errors.length > 0) continue;
      // Lines of one session may come before its record (with a session_id) or be interleaved
      // with other sessions' lines: a group collects them until the session's last line.
      let group = groups.get(owner);
      if (!group) {
        group = { messages: [] };
        groups.set(owner, group);
      }
      if (parsed.kind === "session")
        Object.assign(group, { record: parsed.record, input: parsed.input, recordLine: line });
      else if (parsed.kind === "message") group.messages.push({ line, input: parsed.input });
      if (line !== info.lastLine) continue;
      groups.delete(owner);
      const { record, input, recordLine } = group;
      if (!record || !input || recordLine === undefined) continue;
      const parent = input.parentSessionId ?? undefined;
      this.#handed.push({
        id: record.id,
        recordLine,
        messageLines: group.messages.map((m) => m.line),
        parent,
      });
      const session = { ...input, id: record.id };
      // The store waits for a parent it has not seen, holding the child in memory until the end
      // of the file: only for a parent that is in the file. Any other goes at once.
      const parentInFile = parent !== undefined && this.#plan.sessions.get(parent)?.errors.length === 0;
      if (parent !== undefined && !parentInFile && !(await this.#stored(parent))) {
        this.outcome.warnings.push(unlinkedWarning(recordLine, record.id, parent));
        delete session.parentSessionId;
      }
      const { ended_at: at, end_reason: reason } = record;
      yield {
        session,
        messages: group.messages.map((m) => m.input),
        ...(record.archived ? { archived: true } : {}),
        ...(record.pinned ? { pinned: true } : {}),
        ...(at !== undefined && reason !== undefined ? { ended: { reason, at } } : {}),
      };
    }
  }
}

const IMPORT_OPTIONS = {
  "dry-run": { type: "boolean", help: "check the file only; write nothing" },
  from: { type: "string", value: "FORMAT", help: "the agent whose sessions to import" },
  watch: {
    type: "boolean",
    help: "(with --from) import again every second until Ctrl-C (exit 0): new lines appear in search and serve within seconds; no lock is held between two runs",
  },
} as const satisfies OptionDefs;

export const importCommand = defineCommand({
  name: "import",
  usage: "import FILE|- [--dry-run] [--json]  |  import --from FORMAT [PATH…] [--watch] [--json]",
  help: [
    "Reads the format `sessiondb export` writes (see `sessiondb export --help`); creates the store",
    "if it does not exist. The file is read twice: first every line is checked, then each session",
    "whose lines are all good is written whole — its record, messages, flags and end are stored",
    "together or not at all. A session with any bad line is not imported at all, and every bad",
    "line is reported with its line number. Sessions already in the store with messages are",
    "skipped, so re-running an import is safe. The sessions are written in short transactions with",
    "pauses between them, so agents writing to the store meanwhile are not held up; Ctrl-C stops",
    "between two of them (exit 130).",
    "",
    "On a terminal, a progress bar on stderr counts the messages written.",
    "",
    "Exit 8 when any line was bad (the good sessions are imported all the same). Exit 2 for an",
    "empty file, a folder, or a file that is the store, one of its files or a SQLite database.",
    "",
    "--from FORMAT [PATH…] imports another agent's sessions where it keeps them (claude-code:",
    "~/.claude/projects, codex: ~/.codex/sessions, hermes: $HERMES_HOME/state.db, else",
    "~/.hermes/state.db, opencode: ~/.local/share/opencode/opencode.db and the storage/ folder",
    "beside it, or that storage/ folder alone), or from the folders or files named. Each file",
    "is only read. Rows keep the producer's ids, so running it again adds only what is new: a",
    "file unchanged since the last run is skipped on its size and time, a database's session on",
    "its mark (what it holds), and a last line still being written waits for the next run.",
    "Broken lines are reported as FILE:LINE, broken database rows as FILE (TABLE row ID), a",
    "broken session file as FILE (exit 8); the rest comes in.",
  ].join("\n"),
  options: IMPORT_OPTIONS,
  args: { min: 0, max: Number.MAX_SAFE_INTEGER, names: "FILE" },
  json: true,
  async run(context) {
    const { values, positionals, runtime } = context;
    if (values.from !== undefined) {
      if (values["dry-run"]) throw new UsageError("--dry-run does not go with --from");
      const { importFromCommand } = await import("./import-from.js");
      return importFromCommand(values.from, context);
    }
    if (values.watch) throw new UsageError("--watch goes with --from FORMAT");
    if (positionals.length !== 1)
      throw new UsageError(
        positionals.length === 0
          ? "import needs FILE (or - for stdin), or --from FORMAT"
          : "import takes one FILE",
      );
    const file = positionals[0] as string;
    const source = await importSource(file, localStoreFile(values));
    let checked: Plan;
    try {
      checked = await plan(source);
    } catch (error) {
      throw fileError(error, `cannot read ${file}`, "nothing was imported");
    }
    if (checked.lines === 0) {
      throw new ExitError(
        EXIT.USAGE,
        `${file === "-" ? "stdin" : file} is empty: there is nothing to import; nothing was changed`,
        "EMPTY_INPUT",
      );
    }
    const bad = [...checked.sessions.values()].filter((s) => s.errors.length > 0);
    const problems = [...checked.orphans, ...bad.flatMap((s) => s.errors)].sort((a, b) => a.line - b.line);
    const good = [...checked.sessions.values()].filter((s) => s.errors.length === 0);
    let outcome: Outcome = {
      imported: 0,
      resumed: 0,
      skipped: [],
      failed: bad.length,
      messages: 0,
      errors: problems,
      warnings: [],
    };
    // With no good session there is nothing to write: the store is not opened (nor created).
    if (!values["dry-run"] && good.length > 0) {
      const storeFile = localStoreFile(values);
      const created = storeFile !== undefined && !fs.existsSync(storeFile);
      const { store } = await openFor(runtime, values, "create");
      let empty = false;
      try {
        // A bar on a terminal only: elsewhere stderr carries the problems found, nothing else.
        const bar =
          !values.json && process.stderr.isTTY
            ? new Progress({ label: "import", unit: "messages" })
            : undefined;
        const importer = new Importer(store, checked, bar);
        // Ctrl-C (or SIGTERM, SIGHUP) stops between two steps: every session is then imported
        // whole or not at all.
        const stop = new Interrupt();
        try {
          await importer.run(source, stop.signal);
          bar?.finish();
        } catch (error) {
          if (stop.aborted) {
            bar?.finish("interrupted");
            throw stop.error(
              `interrupted after ${plural(importer.sessionsDone, "session")} of ${count(good.length)}; each session is imported whole or not at all — run the import again to finish (sessions already imported are skipped)`,
            );
          }
          throw fileError(
            error,
            `cannot read ${file} again`,
            "the sessions imported before this are kept; run the import again to finish it",
          );
        }
        const o = importer.outcome;
        outcome = {
          ...o,
          failed: o.failed + bad.length,
          errors: [...problems, ...o.errors].sort((a, b) => a.line - b.line),
        };
        // Every session the file passed was refused by the store: the store this import created
        // holds nothing (asked of the store, in case another process wrote to it meanwhile).
        empty = created && o.imported === 0 && (await store.listSessions({ limit: 1 })).length === 0;
      } finally {
        await store.close();
      }
      if (empty && storeFile !== undefined) removeEmptyStore(storeFile);
    }
    const ignored = Object.fromEntries(checked.ignored);
    if (values.json) {
      printJson({
        dryRun: values["dry-run"] === true,
        sessions: {
          valid: good.length,
          imported: outcome.imported,
          resumed: outcome.resumed,
          skipped: outcome.skipped.length,
          failed: outcome.failed,
        },
        messages: values["dry-run"] ? good.reduce((n, s) => n + s.messages, 0) : outcome.messages,
        errors: outcome.errors,
        warnings: outcome.warnings,
        ignoredFields: ignored,
      });
    } else {
      for (const p of outcome.errors) {
        process.stderr.write(
          `line ${p.line}: ${visible(`${p.sessionId ? `session ${JSON.stringify(p.sessionId)}: ` : ""}${p.message}`)}\n`,
        );
      }
      for (const p of outcome.warnings)
        process.stderr.write(`line ${p.line}: warning: ${visible(p.message)}\n`);
      if (checked.ignored.size > 0) {
        const list = [...checked.ignored].map(([key, n]) => `${key} (${count(n)})`).join(", ");
        process.stderr.write(`ignored unknown fields: ${visible(list)}\n`);
      }
      if (values["dry-run"]) {
        const messages = good.reduce((n, s) => n + s.messages, 0);
        print(
          `checked: ${plural(good.length, "session")} (${plural(messages, "message")}) would be imported; ${plural(outcome.failed, "session")} with bad lines`,
        );
      } else {
        const parts = [
          `imported ${plural(outcome.imported, "session")} (${plural(outcome.messages, "message")})`,
        ];
        if (outcome.resumed)
          parts.push(`${count(outcome.resumed)} of them resumed (they existed without messages)`);
        if (outcome.skipped.length)
          parts.push(`skipped ${count(outcome.skipped.length)} already in the store`);
        if (outcome.failed) parts.push(`${count(outcome.failed)} not imported because of bad lines`);
        print(parts.join("; "));
      }
    }
    return outcome.errors.length > 0 ? EXIT.BAD_INPUT : EXIT.OK;
  },
});
