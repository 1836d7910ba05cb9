import * as fs from "node:fs";
import process from "node:process";
import { setImmediate } from "node:timers";
import type { SessionSummary, Store } from "@sessiondb/core";
import type { Command, CommandContext } from "../command.js";
import { EXIT, ExitError, UsageError } from "../exit.js";
import { allSessions } from "../inspect.js";
import { messageToRecord, sessionToRecord } from "../jsonl.js";
import { openFor, storePath } from "../open.js";
import { OutputFile } from "../output-file.js";
import { writeOutDrained } from "../output.js";
import { fileError, type ResolvedPath, refuseDatabases, refuseStoreFiles, resolvePath } from "../paths.js";

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

/** Write every session and its messages; returns the number of lines. */
async function writeSessions(
  store: Store,
  sessions: SessionSummary[],
  write: (text: string) => Promise<void>,
): Promise<number> {
  let lines = 0;
  for (const summary of exportOrder(sessions)) {
    // listSessions adds preview/lastActiveAt; the record takes the Session fields only.
    await write(`${JSON.stringify(sessionToRecord(summary))}\n`);
    lines++;
    for (let afterId = 0; ; ) {
      const page = store.getMessages(summary.id, { afterId, limit: PAGE });
      let chunk = "";
      for (const message of page) chunk += `${JSON.stringify(messageToRecord(message))}\n`;
      if (chunk) await write(chunk);
      lines += page.length;
      const last = page[page.length - 1];
      if (page.length < PAGE || !last) break;
      afterId = last.id;
    }
  }
  return lines;
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
      refuseStoreFiles({ stat: stdout }, storePath(values).path, "stdout", "nothing was written");
    return undefined;
  }
  if (typeof output !== "string" || output === "") throw new UsageError("--output needs a file name");
  const what = `--output ${output}`;
  const intact = "nothing was written";
  try {
    const target = resolvePath(output);
    if (target.stat?.isDirectory())
      throw new ExitError(EXIT.USAGE, `${what} is a folder; ${intact}. Name a file.`, "EISDIR");
    refuseStoreFiles(target, storePath(values).path, what, intact);
    refuseDatabases(target, what, intact);
    return target;
  } catch (error) {
    throw fileError(error, `cannot write ${what}`, intact);
  }
}

/** Write to a temporary file and rename it over `target` when complete; Ctrl-C discards it. */
async function exportToFile(store: Store, sessions: SessionSummary[], target: ResolvedPath): Promise<number> {
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
      const lines = await writeSessions(store, sessions, async (text) => {
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

/** Write to stdout with backpressure; a reader that goes away (`| head`) ends the export. */
async function exportToStdout(store: Store, sessions: SessionSummary[]): Promise<void> {
  try {
    await writeSessions(store, sessions, writeOutDrained);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EPIPE") throw error;
  }
}

export const exportCommand: Command = {
  name: "export",
  summary: "write sessions and messages as JSONL (OpenAI chat message format)",
  usage: "export [--session ID]… [--source S] [--output FILE]",
  help: [
    "Writes one JSON object per line to stdout (or FILE): a session record, then its messages.",
    "Sessions come oldest first, parents before children; archived sessions are included.",
    "",
    "  --session ID   only this session; repeatable",
    "  --source S     only sessions from this source",
    "  --output FILE  write to FILE instead of stdout: to a temporary file in its folder, renamed",
    "                 into place when complete (mode 0600). Never the store, one of its files or",
    "                 any SQLite database (exit 2).",
    "",
    'Session record: {type:"session", id, source, model?, model_config?, title?, parent_session_id?,',
    "  cwd?, started_at, ended_at?, end_reason?, archived?, pinned?, metadata?}",
    "Message: {role, content, name?, tool_calls?, tool_call_id?, session_id, timestamp, token_count?,",
    "  finish_reason?, reasoning?, metadata?}   (name = sessiondb's toolName)",
    "Not exported: usage/cost rows and counters (no public API can re-create them exactly),",
    "and inactive messages.",
  ].join("\n"),
  options: {
    session: { type: "string", multiple: true },
    source: { type: "string" },
    output: { type: "string" },
  },
  args: { min: 0, max: 0, names: "" },
  json: false,
  async run({ values, runtime }) {
    const target = outputTarget(values);
    const store = openFor(await runtime(), values, "read");
    try {
      const wanted = values.session as string[] | undefined;
      let sessions = allSessions(store, values.source ? String(values.source) : undefined);
      if (wanted?.length) {
        const have = new Set(sessions.map((s) => s.id));
        const missing = wanted.filter((id) => !have.has(id));
        if (missing.length) {
          throw new ExitError(
            EXIT.NOT_FOUND,
            `no session ${missing.map((id) => JSON.stringify(id)).join(", ")} in ${store.path}`,
            "SESSION_NOT_FOUND",
          );
        }
        const keep = new Set(wanted);
        sessions = sessions.filter((s) => keep.has(s.id));
      }
      if (!target) {
        await exportToStdout(store, sessions);
        return EXIT.OK;
      }
      const lines = await exportToFile(store, sessions, target);
      process.stderr.write(`exported ${sessions.length} sessions (${lines} lines) to ${target.given}\n`);
      return EXIT.OK;
    } finally {
      store.close();
    }
  },
};
