import * as fs from "node:fs";
import process from "node:process";
import type { SessionSummary } from "@sessiondb/core";
import type { Command } from "../command.js";
import { EXIT, ExitError } from "../exit.js";
import { allSessions } from "../inspect.js";
import { messageToRecord, sessionToRecord } from "../jsonl.js";
import { openFor } from "../open.js";

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

/** Write with backpressure; resolves when the chunk is accepted. */
function writer(stream: NodeJS.WritableStream): (text: string) => Promise<void> {
  return (text) =>
    new Promise((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      stream.once("error", onError);
      if (stream.write(text)) {
        stream.off("error", onError);
        resolve();
      } else {
        stream.once("drain", () => {
          stream.off("error", onError);
          resolve();
        });
      }
    });
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
    "  --output FILE  write to FILE instead of stdout",
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
    const store = openFor(await runtime(), values, "read");
    let sessions: SessionSummary[];
    try {
      const wanted = values.session as string[] | undefined;
      sessions = allSessions(store, values.source ? String(values.source) : undefined);
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
    } catch (error) {
      store.close();
      throw error;
    }
    const file = values.output ? fs.createWriteStream(String(values.output), { mode: 0o600 }) : undefined;
    const out = file ?? process.stdout;
    const write = writer(out);
    let lines = 0;
    try {
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
    } catch (error) {
      // A reader that went away (`| head`) is not a failure of the export.
      if ((error as { code?: unknown }).code === "EPIPE") return EXIT.OK;
      throw error;
    } finally {
      store.close();
      if (file)
        await new Promise<void>((resolve, reject) =>
          file.end((error?: Error | null) => (error ? reject(error) : resolve())),
        );
    }
    if (file)
      process.stderr.write(`exported ${sessions.length} sessions (${lines} lines) to ${values.output}\n`);
    return EXIT.OK;
  },
};
