import * as fs from "node:fs";
import * as nodePath from "node:path";
import process from "node:process";
import { setImmediate } from "node:timers";
import type { SessionSummary } from "@sessiondb/core";
import type { Command, CommandContext } from "../command.js";
import { EXIT, ExitError, UsageError } from "../exit.js";
import { plural } from "../format.js";
import { allSessions } from "../inspect.js";
import { localStoreFile, openFor } from "../open.js";
import { writeErr, writeOutDrained } from "../output.js";
import { OutputFile } from "../output-file.js";
import { fileError, type ResolvedPath, refuseDatabases, refuseStoreFiles, resolvePath } from "../paths.js";
import { redactor } from "../redact.js";
import type { CliStore } from "../server.js";
import { FORMAT, FORMATS, type Format, type FormatName } from "../transcript.js";
import { timeRange } from "../when.js";

/** Messages read per page, so a long session never sits in memory whole. */
const PAGE = 1000;

/** Oldest first, and every parent before its children (import needs the parent to exist). */
export function exportOrder(sessions: SessionSummary[]): SessionSummary[] {
  const sorted = [...sessions].sort(
    (a, b) => a.startedAt - b.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const byId = new Map(sorted.map((s) => [s.id, s]));
  const out: SessionSummary[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const place = (s: SessionSummary) => {
    if (placed.has(s.id) || visiting.has(s.id)) return;
    visiting.add(s.id);
    const parent = s.parentSessionId ? byId.get(s.parentSessionId) : undefined;
    if (parent) place(parent);
    visiting.delete(s.id);
    placed.add(s.id);
    out.push(s);
  };
  for (const s of sorted) place(s);
  return out;
}

/** How the sessions are written: the format, and the redaction applied to everything first. */
interface Rendering {
  format: Format;
  redact: <T>(value: T) => T;
}

/** Write every session and its messages as one document; returns the number of messages. */
async function writeSessions(
  store: CliStore,
  sessions: SessionSummary[],
  { format, redact }: Rendering,
  write: (text: string) => Promise<void>,
): Promise<number> {
  let messages = 0;
  const start = format.start(
    sessions.length === 1 ? (sessions[0]?.title ?? sessions[0]?.id ?? "") : "sessiondb export",
  );
  if (start) await write(start);
  for (const summary of exportOrder(sessions)) {
    // listSessions adds preview/lastActiveAt; the formats take the Session fields only.
    const { preview: _preview, lastActiveAt: _lastActiveAt, ...session } = summary;
    await write(format.session(redact(session)));
    for (let afterId = 0; ; ) {
      const page = await store.getMessages(summary.id, { afterId, limit: PAGE });
      let chunk = "";
      for (const message of page) chunk += format.message(redact(message));
      if (chunk) await write(chunk);
      messages += page.length;
      const last = page[page.length - 1];
      if (page.length < PAGE || !last) break;
      afterId = last.id;
    }
    const end = format.sessionEnd();
    if (end) await write(end);
  }
  const end = format.end();
  if (end) await write(end);
  return messages;
}

/** --output, resolved and checked before anything is opened; undefined for stdout. */
function outputTarget(values: CommandContext["values"]): ResolvedPath | undefined {
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
  if (typeof output !== "string" || output === "") throw new UsageError("--output needs a file name");
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

/** Write to a temporary file and rename it over `target` when complete; Ctrl-C discards it. */
async function exportToFile(
  store: CliStore,
  sessions: SessionSummary[],
  rendering: Rendering,
  target: ResolvedPath,
): Promise<number> {
  const what = `cannot write --output ${target.given}`;
  const intact = target.stat?.isFile() ? `${target.given} is unchanged` : "nothing was written";
  // Listening before the temporary file exists: a Ctrl-C from then on must remove it.
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.on("SIGINT", onSigint);
  const stopIfInterrupted = () => {
    if (interrupt.signal.aborted)
      throw new ExitError(EXIT.INTERRUPTED, `export interrupted; ${intact}`, "INTERRUPTED");
  };
  try {
    let file: OutputFile;
    try {
      file = OutputFile.create(target);
    } catch (error) {
      throw fileError(error, what, intact);
    }
    try {
      const lines = await writeSessions(store, sessions, rendering, async (text) => {
        stopIfInterrupted();
        file.write(text);
        // The writes are synchronous: give a Ctrl-C its turn.
        await new Promise((resolve) => setImmediate(resolve));
      });
      stopIfInterrupted();
      file.commit();
      return lines;
    } catch (error) {
      file.discard();
      throw fileError(error, what, intact);
    }
  } finally {
    process.off("SIGINT", onSigint);
  }
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

/** --output-dir: one file per session, each written like --output (temporary file, then rename). */
async function exportToFolder(
  store: CliStore,
  sessions: SessionSummary[],
  rendering: Rendering,
  folder: string,
  storeFile: string | undefined,
): Promise<number> {
  const intact = "nothing was written";
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (!fs.statSync(folder).isDirectory())
      throw new ExitError(EXIT.USAGE, `--output-dir ${folder} is not a folder; ${intact}`, "ENOTDIR");
  } catch (error) {
    throw fileError(error, `cannot create --output-dir ${folder}`, intact);
  }
  const taken = new Set<string>();
  let messages = 0;
  for (const session of sessions) {
    const given = nodePath.join(folder, fileNameOf(session.id, rendering.format.extension, taken));
    let target: ResolvedPath;
    try {
      target = resolvePath(given);
      refuseStoreFiles(target, storeFile, given, "the files before it were written");
      refuseDatabases(target, given, "the files before it were written");
    } catch (error) {
      throw fileError(error, `cannot write ${given}`, "the files before it were written");
    }
    messages += await exportToFile(store, [session], rendering, target);
  }
  return messages;
}

/** Write to stdout with backpressure; a reader that goes away (`| head`) ends the export. */
async function exportToStdout(
  store: CliStore,
  sessions: SessionSummary[],
  rendering: Rendering,
): Promise<void> {
  try {
    await writeSessions(store, sessions, rendering, writeOutDrained);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EPIPE") throw error;
  }
}

export const exportCommand: Command = {
  name: "export",
  summary: "write sessions as JSONL (importable), Markdown or HTML",
  usage:
    "export [--format jsonl|markdown|html] [--session ID]… [--source S] [--since T] [--until T] [--redact PATTERN]… [--output FILE | --output-dir DIR]",
  help: [
    "Writes to stdout (or FILE) one document with every chosen session: by default JSONL, one JSON",
    "object per line, a session record then its messages — the format `sessiondb import` reads.",
    "Sessions come oldest first, parents before children; archived sessions are included.",
    "",
    "  --format F       jsonl (default), markdown (md) or html: Markdown and HTML are for reading",
    "                   (every message in full; HTML shows content as escaped text, with no scripts)",
    "  --session ID     only this session; repeatable",
    "  --source S       only sessions from this source",
    "  --since T        sessions started at or after T (2025-01-31, an ISO time, or epoch seconds)",
    "  --until T        sessions started before T",
    "  --redact P       replace P with [REDACTED] in everything written but ids; literal text, or",
    "                   /a regular expression/flags; repeatable",
    "  --output FILE    write to FILE instead of stdout: to a temporary file in its folder, renamed",
    "                   into place when complete (mode 0600). Never the store, one of its files or",
    "                   any SQLite database (exit 2).",
    "  --output-dir DIR one file per session in DIR (created if missing), named after the session",
    "                   id (<id>.jsonl, .md, .html), each written the same way as --output",
    "",
    'Session record: {type:"session", id, source, model?, model_config?, title?, parent_session_id?,',
    "  cwd?, started_at, ended_at?, end_reason?, archived?, pinned?, metadata?}",
    "Message: {role, content, name?, tool_calls?, tool_call_id?, session_id, timestamp, token_count?,",
    "  finish_reason?, reasoning?, metadata?}   (name = sessiondb's toolName)",
    "Not exported: usage/cost rows and counters (no public API can re-create them exactly),",
    "and inactive messages.",
  ].join("\n"),
  options: {
    format: { type: "string" },
    session: { type: "string", multiple: true },
    source: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    redact: { type: "string", multiple: true },
    output: { type: "string" },
    "output-dir": { type: "string" },
  },
  args: { min: 0, max: 0, names: "" },
  json: false,
  async run({ values, runtime }) {
    const name = String(values.format ?? "jsonl").toLowerCase();
    const formatName = (name === "md" ? "markdown" : name) as FormatName;
    if (!FORMATS.includes(formatName))
      throw new UsageError(`--format must be jsonl, markdown or html, got ${JSON.stringify(values.format)}`);
    const rendering: Rendering = {
      format: FORMAT[formatName],
      redact: redactor((values.redact as string[] | undefined) ?? []),
    };
    const { since, until } = timeRange(values);
    const folder = values["output-dir"];
    if (folder !== undefined && values.output !== undefined)
      throw new UsageError("choose --output FILE or --output-dir DIR, not both");
    if (folder === "") throw new UsageError("--output-dir needs a folder name");
    const target = folder === undefined ? outputTarget(values) : undefined;
    const { store, shown } = await openFor(runtime, values, "read");
    try {
      const wanted = values.session as string[] | undefined;
      let sessions = (await allSessions(store, values.source ? String(values.source) : undefined)).filter(
        (s) => (since === undefined || s.startedAt >= since) && (until === undefined || s.startedAt < until),
      );
      if (wanted?.length) {
        const have = new Set(sessions.map((s) => s.id));
        const missing = wanted.filter((id) => !have.has(id));
        if (missing.length) {
          throw new ExitError(
            EXIT.NOT_FOUND,
            `no session ${missing.map((id) => JSON.stringify(id)).join(", ")} in ${shown}${since !== undefined || until !== undefined || values.source ? " matching the filters" : ""}`,
            "SESSION_NOT_FOUND",
          );
        }
        const keep = new Set(wanted);
        sessions = sessions.filter((s) => keep.has(s.id));
      }
      if (typeof folder === "string") {
        const messages = await exportToFolder(store, sessions, rendering, folder, localStoreFile(values));
        writeErr(
          `exported ${plural(sessions.length, "session")} (${plural(messages, "message")}) to ${plural(sessions.length, "file")} in ${folder}\n`,
        );
        return EXIT.OK;
      }
      if (!target) {
        await exportToStdout(store, sessions, rendering);
        return EXIT.OK;
      }
      const messages = await exportToFile(store, sessions, rendering, target);
      writeErr(
        `exported ${plural(sessions.length, "session")} (${plural(messages, "message")}) to ${target.given}\n`,
      );
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
};
