import * as fs from "node:fs";
import * as nodePath from "node:path";
import { setImmediate } from "node:timers";
import type { Message, Session, SessionSummary } from "@sessiondb/core";
import { defineCommand } from "../command.js";
import { EXIT, ExitError, UsageError } from "../exit.js";
import { count, plural } from "../format.js";
import { allSessions } from "../inspect.js";
import { Interrupt } from "../interrupt.js";
import { type GlobalOptions, localStoreFile, openFor } from "../open.js";
import { writeErr, writeOutDrained } from "../output.js";
import { OutputFile } from "../output-file.js";
import { fileError, type ResolvedPath, refuseDatabases, refuseStoreFiles, resolvePath } from "../paths.js";
import { redactor } from "../redact.js";
import type { CliStore } from "../server.js";
import { FORMAT, FORMATS, type Format } from "../transcript.js";
import { visible } from "../visible.js";
import { parseTime } from "../when.js";

/** Messages read per page, so a long session never sits in memory whole. */
const PAGE = 1000;

/** Oldest first, and every parent before its children (import needs the parent to exist). */
export function exportOrder<T extends Session>(sessions: T[]): T[] {
  const sorted = [...sessions].sort(
    (a, b) => a.startedAt - b.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const byId = new Map(sorted.map((s) => [s.id, s]));
  const out: T[] = [];
  const placed = new Set<string>();
  for (const s of sorted) {
    // The session and its ancestors not placed yet, walked up in a loop (a chain can be longer
    // than the call stack is deep), then placed from the oldest ancestor down. A cycle ends the
    // walk where it closes.
    const chain: T[] = [];
    const inChain = new Set<string>();
    for (
      let at: T | undefined = s;
      at && !placed.has(at.id) && !inChain.has(at.id);
      at = at.parentSessionId ? byId.get(at.parentSessionId) : undefined
    ) {
      chain.push(at);
      inChain.add(at.id);
    }
    for (const session of chain.reverse()) {
      placed.add(session.id);
      out.push(session);
    }
  }
  return out;
}

/** A session's own fields: listSessions adds preview and lastActiveAt, which the formats leave out. */
function sessionFields(given: Session): Session {
  const {
    preview: _preview,
    lastActiveAt: _lastActiveAt,
    ...session
  } = given as Session & Partial<Pick<SessionSummary, "preview" | "lastActiveAt">>;
  return session;
}

/** The session `id` names, or undefined when there is none — also for an id no session can
 * have (too long, control characters), which the store refuses as input. */
async function sessionById(store: CliStore, id: string): Promise<Session | undefined> {
  try {
    return await store.getSession(id);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === "INVALID_INPUT") return undefined;
    throw error;
  }
}

/** How the sessions are written: the format, and the redaction applied to everything first. */
interface Rendering {
  format: Format;
  redact: <T>(value: T) => T;
}

/** Where an export goes: text in order; a file can be cut back to an earlier point. */
interface Sink {
  write(text: string): Promise<void>;
  /** A point `rewind` can return to; undefined when what is written cannot be taken back
   * (stdout, a FIFO). */
  mark(): number | undefined;
  rewind(mark: number): void;
}

/** A session another process deleted while the export ran (its id and the messages of it that
 * were written: 0 when it was left out whole). */
interface Vanished {
  id: string;
  messagesWritten: number;
}

/** What an export wrote. */
interface Exported {
  sessions: number;
  messages: number;
  vanished: Vanished[];
}

/** A page of a session's messages; undefined once the session no longer exists. */
async function pageOf(store: CliStore, id: string, afterId: number): Promise<Message[] | undefined> {
  try {
    return await store.getMessages(id, { afterId, limit: PAGE });
  } catch (error) {
    if ((error as { code?: unknown }).code === "SESSION_NOT_FOUND") return undefined;
    throw error;
  }
}

/**
 * Write every session and its messages as one document. The session list is one read and each
 * page of messages another, so another process can delete a session meanwhile. Such a session is
 * never written as a record without its messages: gone before its first page was read, it is left
 * out whole; gone between two pages (a session over PAGE messages), a file is cut back to before
 * its record, so it is left out whole too, while on stdout the record and the pages already
 * written stay (they are what the session held) and the rest is not written. Either way the
 * export goes on with the next session, and the caller says which sessions were affected.
 */
async function writeSessions(
  store: CliStore,
  sessions: Session[],
  { format, redact }: Rendering,
  sink: Sink,
): Promise<Exported> {
  const out: Exported = { sessions: 0, messages: 0, vanished: [] };
  const start = format.start(
    sessions.length === 1 ? (sessions[0]?.title ?? sessions[0]?.id ?? "") : "sessiondb export",
  );
  if (start) await sink.write(start);
  for (const summary of exportOrder(sessions)) {
    let page = await pageOf(store, summary.id, 0);
    if (!page) {
      out.vanished.push({ id: summary.id, messagesWritten: 0 });
      continue;
    }
    const mark = sink.mark();
    let chunk = format.session(redact(sessionFields(summary)));
    let written = 0;
    let leftOut = false;
    for (;;) {
      for (const message of page) chunk += format.message(redact(message));
      if (chunk) await sink.write(chunk);
      written += page.length;
      const last = page.at(-1);
      if (page.length < PAGE || !last) break;
      const next = await pageOf(store, summary.id, last.id);
      if (!next) {
        leftOut = mark !== undefined;
        if (leftOut) sink.rewind(mark as number);
        out.vanished.push({ id: summary.id, messagesWritten: leftOut ? 0 : written });
        break;
      }
      page = next;
      chunk = "";
    }
    if (leftOut) continue;
    const end = format.sessionEnd();
    if (end) await sink.write(end);
    out.sessions++;
    out.messages += written;
  }
  const end = format.end();
  if (end) await sink.write(end);
  return out;
}

/** The summary's tail for the sessions deleted while the export ran and left out whole. */
function leftOut(vanished: readonly Vanished[]): string {
  const n = vanished.filter((v) => v.messagesWritten === 0).length;
  return n ? `; left out ${plural(n, "session")} deleted during the export` : "";
}

/** One stderr line for each session deleted while the export ran. */
function noteVanished(vanished: readonly Vanished[]): void {
  for (const { id, messagesWritten } of vanished) {
    const which = `session ${visible(JSON.stringify(id))}`;
    writeErr(
      messagesWritten === 0
        ? `sessiondb: note: ${which} was deleted by another process during the export and is left out\n`
        : `sessiondb: note: ${which} was deleted by another process while it was exported: its record and first ${plural(messagesWritten, "message")} were written, the rest was not\n`,
    );
  }
}

/** --output, resolved and checked before anything is opened; undefined for stdout. */
function outputTarget(values: GlobalOptions & { output?: string }): ResolvedPath | undefined {
  const output = values.output;
  if (output === undefined || output === "-") {
    // `export >> state.db` would append to the store: the shell opened it, not us, but we can
    // still refuse to write.
    let stdout: fs.Stats | undefined;
    try {
      stdout = fs.fstatSync(1);
    } catch {
      // No stdout at all: writing will fail and say so.
    }
    if (stdout?.isFile())
      refuseStoreFiles({ stat: stdout }, localStoreFile(values), "stdout", "nothing was written");
    return undefined;
  }
  if (output === "") throw new UsageError("--output needs a file name");
  const what = `--output ${output}`;
  const intact = "nothing was written";
  try {
    const target = resolvePath(output);
    if (target.stat?.isDirectory())
      throw new ExitError(EXIT.USAGE, `${what} is a folder; ${intact}. Name a file.`, "EISDIR");
    refuseStoreFiles(target, localStoreFile(values), what, intact);
    refuseDatabases(target, what, intact);
    return target;
  } catch (error) {
    throw fileError(error, `cannot write ${what}`, intact);
  }
}

/**
 * Write to a temporary file and rename it over `target` when complete. A stop signal (Ctrl-C,
 * SIGTERM, SIGHUP: `stop`) or a failure discards it, and the error names the file as `what` and
 * says `intact`. With `keepEmpty` false, an export that wrote no session (its one session was
 * deleted meanwhile) creates no file.
 */
async function exportToFile(
  store: CliStore,
  sessions: Session[],
  rendering: Rendering,
  target: ResolvedPath,
  { stop, what, intact, keepEmpty }: { stop: Interrupt; what: string; intact: string; keepEmpty: boolean },
): Promise<Exported> {
  const stopIfInterrupted = () => {
    if (stop.aborted) throw stop.error(`export interrupted by ${stop.received}; ${intact}`);
  };
  stopIfInterrupted();
  let file: OutputFile;
  try {
    file = OutputFile.create(target);
  } catch (error) {
    throw fileError(error, what, intact);
  }
  try {
    const out = await writeSessions(store, sessions, rendering, {
      write: async (text) => {
        stopIfInterrupted();
        file.write(text);
        // The writes are synchronous: give a signal its turn.
        await new Promise((resolve) => setImmediate(resolve));
      },
      mark: () => file.mark(),
      rewind: (mark) => file.rewind(mark),
    });
    stopIfInterrupted();
    if (out.sessions === 0 && !keepEmpty) file.discard();
    else file.commit();
    return out;
  } catch (error) {
    file.discard();
    throw fileError(error, what, intact);
  }
}

/** `--output FILE`: one document; an existing FILE stays as it was unless the export completes. */
async function exportToOneFile(
  store: CliStore,
  sessions: Session[],
  rendering: Rendering,
  target: ResolvedPath,
): Promise<Exported> {
  const intact = target.stat?.isFile() ? `${target.given} is unchanged` : "nothing was written";
  // Listening before the temporary file exists: a signal from then on must remove it.
  const stop = new Interrupt();
  return await exportToFile(store, sessions, rendering, target, {
    stop,
    what: `cannot write --output ${target.given}`,
    intact,
    keepEmpty: true,
  });
}

/** A file name for a session id: characters a file system or shell would trip on become "_". */
function fileNameOf(id: string, extension: string, taken: Set<string>): string {
  const base =
    id
      .replace(/[^\p{L}\p{N}._-]/gu, "_")
      .replace(/^\.+/, "_")
      .slice(0, 200) || "session";
  let name = `${base}.${extension}`;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}-${n}.${extension}`;
  taken.add(name.toLowerCase());
  return name;
}

/**
 * --output-dir: one file per session, each written like --output (temporary file, then rename).
 * A failure or a stop signal ends the export with the file being written removed; the files
 * finished before it are complete and stay, and the error says how many there are.
 */
async function exportToFolder(
  store: CliStore,
  sessions: Session[],
  rendering: Rendering,
  folder: string,
  storeFile: string | undefined,
): Promise<Exported> {
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (!fs.statSync(folder).isDirectory())
      throw new ExitError(
        EXIT.USAGE,
        `--output-dir ${folder} is not a folder; nothing was written`,
        "ENOTDIR",
      );
  } catch (error) {
    throw fileError(error, `cannot create --output-dir ${folder}`, "nothing was written");
  }
  const taken = new Set<string>();
  const out: Exported = { sessions: 0, messages: 0, vanished: [] };
  let files = 0;
  const stop = new Interrupt();
  // In the order of one document (oldest first), so a stopped export has kept the oldest.
  for (const session of exportOrder(sessions)) {
    const given = nodePath.join(folder, fileNameOf(session.id, rendering.format.extension, taken));
    const intact =
      files === 0
        ? "nothing was written"
        : `this file was not written; ${files === 1 ? "the file before it" : `the ${count(files)} files before it`} in ${folder} ${files === 1 ? "is" : "are"} complete and kept`;
    let target: ResolvedPath;
    try {
      target = resolvePath(given);
      refuseStoreFiles(target, storeFile, given, intact);
      refuseDatabases(target, given, intact);
    } catch (error) {
      throw fileError(error, `cannot write ${given}`, intact);
    }
    const one = await exportToFile(store, [session], rendering, target, {
      stop,
      what: `cannot write ${given}`,
      intact,
      keepEmpty: false,
    });
    files += one.sessions;
    out.sessions += one.sessions;
    out.messages += one.messages;
    out.vanished.push(...one.vanished);
  }
  return out;
}

/** Write to stdout with backpressure; a reader that goes away (`| head`) ends the export. */
async function exportToStdout(store: CliStore, sessions: Session[], rendering: Rendering): Promise<Exported> {
  try {
    return await writeSessions(store, sessions, rendering, {
      write: writeOutDrained,
      mark: () => undefined,
      rewind: () => {},
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EPIPE") throw error;
    return { sessions: 0, messages: 0, vanished: [] };
  }
}

export const exportCommand = defineCommand({
  name: "export",
  usage:
    "export [--format jsonl|markdown|html] [--session ID]… [--source S] [--since T] [--until T] [--redact PATTERN]… [--output FILE | --output-dir DIR]",
  help: [
    "Writes to stdout (or FILE) one document with every chosen session: by default JSONL, one JSON",
    "object per line, a session record then its messages — the format `sessiondb import` reads.",
    "Sessions come oldest first, parents before children; archived sessions are included.",
  ].join("\n"),
  options: {
    format: {
      type: "string",
      value: "F",
      default: "jsonl",
      help: "jsonl (default), markdown (md) or html: Markdown and HTML are for reading (every message in full; HTML shows content as escaped text, with no scripts)",
    },
    session: { type: "string", multiple: true, value: "ID", help: "only this session; repeatable" },
    source: { type: "string", value: "S", help: "only sessions from this source" },
    since: {
      type: "string",
      value: "T",
      parse: parseTime,
      help: "sessions started at or after T (2025-01-31, an ISO time, or epoch seconds)",
    },
    until: { type: "string", value: "T", parse: parseTime, help: "sessions started before T" },
    redact: {
      type: "string",
      multiple: true,
      value: "P",
      help: "replace P with [REDACTED] in everything written but ids; literal text, or /a regular expression/flags; repeatable",
    },
    output: {
      type: "string",
      value: "FILE",
      help: "write to FILE instead of stdout: to a temporary file in its folder, renamed into place when complete (mode 0600). Never the store, one of its files or any SQLite database (exit 2).",
    },
    "output-dir": {
      type: "string",
      value: "DIR",
      help: "one file per session in DIR (created if missing), named after the session id (<id>.jsonl, .md, .html), each written the same way as --output",
    },
  },
  notes: [
    "A session another process deletes during the export is left out, with a note on stderr (exit 0).",
    "Exit 1 when a file cannot be written (a full disk is ENOSPC); 130, 143 or 129 when stopped by",
    "SIGINT (Ctrl-C), SIGTERM or SIGHUP. A file that fails or is stopped is removed (an existing one",
    "stays as it was); --output-dir keeps the files it finished, which are complete.",
    "",
    'Session record: {type:"session", id, source, model?, model_config?, title?, parent_session_id?,',
    "  cwd?, started_at, ended_at?, end_reason?, archived?, pinned?, metadata?}",
    "Message: {role, content, name?, tool_calls?, tool_call_id?, session_id, timestamp, token_count?,",
    "  finish_reason?, reasoning?, metadata?}   (name = sessiondb's toolName)",
    "Not exported: usage/cost rows and counters (no public API can re-create them exactly),",
    "and inactive messages.",
  ].join("\n"),
  args: { min: 0, max: 0, names: "" },
  json: false,
  noJson: "what it writes is the data itself, JSON Lines by default (--format jsonl)",
  async run({ values, runtime }) {
    const name = values.format.toLowerCase();
    const formatName = FORMATS.find((f) => f === (name === "md" ? "markdown" : name));
    if (formatName === undefined)
      throw new UsageError(`--format must be jsonl, markdown or html, got ${JSON.stringify(values.format)}`);
    const rendering: Rendering = { format: FORMAT[formatName], redact: redactor(values.redact ?? []) };
    const { since, until } = values;
    const folder = values["output-dir"];
    if (folder !== undefined && values.output !== undefined)
      throw new UsageError("choose --output FILE or --output-dir DIR, not both");
    if (folder === "") throw new UsageError("--output-dir needs a folder name");
    const target = folder === undefined ? outputTarget(values) : undefined;
    const { store, shown } = await openFor(runtime, values, "read");
    try {
      const wanted = values.session;
      const source = values.source || undefined;
      const matches = (s: Session) =>
        (source === undefined || s.source === source) &&
        (since === undefined || s.startedAt >= since) &&
        (until === undefined || s.startedAt < until);
      let sessions: Session[];
      if (wanted?.length) {
        // Each by its id: the list of every session would cost time and memory with the store.
        sessions = [];
        for (const id of new Set(wanted)) {
          const session = await sessionById(store, id);
          if (session && matches(session)) sessions.push(session);
        }
        const have = new Set(sessions.map((s) => s.id));
        const missing = wanted.filter((id) => !have.has(id));
        if (missing.length) {
          throw new ExitError(
            EXIT.NOT_FOUND,
            `no session ${missing.map((id) => JSON.stringify(id)).join(", ")} in ${shown}${since !== undefined || until !== undefined || values.source ? " matching the filters" : ""}`,
            "SESSION_NOT_FOUND",
          );
        }
      } else {
        sessions = (await allSessions(store, source)).filter(matches);
      }
      if (typeof folder === "string") {
        const out = await exportToFolder(store, sessions, rendering, folder, localStoreFile(values));
        noteVanished(out.vanished);
        writeErr(
          `exported ${plural(out.sessions, "session")} (${plural(out.messages, "message")}) to ${plural(out.sessions, "file")} in ${folder}${leftOut(out.vanished)}\n`,
        );
        return EXIT.OK;
      }
      if (!target) {
        noteVanished((await exportToStdout(store, sessions, rendering)).vanished);
        return EXIT.OK;
      }
      const out = await exportToOneFile(store, sessions, rendering, target);
      noteVanished(out.vanished);
      writeErr(
        `exported ${plural(out.sessions, "session")} (${plural(out.messages, "message")}) to ${target.given}${leftOut(out.vanished)}\n`,
      );
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
});
