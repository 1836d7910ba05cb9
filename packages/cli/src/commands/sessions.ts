import type { Message, Session } from "@sessiondb/core";
import type { Command } from "../command.js";
import { EXIT, ExitError, UsageError } from "../exit.js";
import {
  bold,
  contentText,
  count,
  dim,
  oneLineCut,
  print,
  printJson,
  shorten,
  table,
  time,
} from "../format.js";
import { openFor, parseNonNegativeInt, parsePositiveInt } from "../open.js";

export const sessionsList: Command = {
  name: "sessions list",
  summary: "sessions, newest first, with message counts and a preview",
  usage:
    "sessions list [--source S] [--limit N] [--offset N] [--order started|activity] [--archived] [--json]",
  help: [
    "  --source S     only sessions from this source (cli, gateway, cron, …)",
    "  --limit N      at most N sessions (default 50)",
    "  --offset N     skip the first N",
    "  --order O      started (default) or activity (last message first)",
    "  --archived     include archived sessions",
  ].join("\n"),
  options: {
    source: { type: "string" },
    limit: { type: "string" },
    offset: { type: "string" },
    order: { type: "string" },
    archived: { type: "boolean" },
  },
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const order = (values.order as string | undefined) ?? "started";
    if (order !== "started" && order !== "activity")
      throw new UsageError(`--order must be "started" or "activity", got ${JSON.stringify(order)}`);
    const limit = values.limit === undefined ? 50 : parseNonNegativeInt(String(values.limit), "--limit");
    const offset = values.offset === undefined ? 0 : parseNonNegativeInt(String(values.offset), "--offset");
    const store = openFor(await runtime(), values, "read");
    try {
      const sessions = store.listSessions({
        limit,
        offset,
        orderBy: order,
        includeArchived: values.archived === true,
        ...(values.source ? { source: String(values.source) } : {}),
      });
      if (values.json) {
        printJson({ sessions });
        return EXIT.OK;
      }
      if (sessions.length === 0) {
        print("no sessions");
        return EXIT.OK;
      }
      const rows = sessions.map((s) => [
        s.id,
        s.source,
        time(order === "activity" ? s.lastActiveAt : s.startedAt),
        count(s.messageCount),
        oneLineCut(s.title ?? s.preview ?? "", 60) + (s.archived ? dim(" [archived]") : ""),
      ]);
      print(
        table(
          ["ID", "SOURCE", order === "activity" ? "LAST ACTIVE" : "STARTED", "MSGS", "TITLE / FIRST MESSAGE"],
          rows,
        ),
      );
      return EXIT.OK;
    } finally {
      store.close();
    }
  },
};

/** Lines of tool output shown before shortening (unless --full). */
const TOOL_PREVIEW_LINES = 8;
const TOOL_PREVIEW_CHARS = 800;

function header(session: Session): string {
  const facts = [
    session.source,
    session.model,
    `started ${time(session.startedAt)}`,
    `${count(session.messageCount)} messages`,
    session.toolCallCount ? `${count(session.toolCallCount)} tool calls` : undefined,
    session.endedAt ? `ended ${time(session.endedAt)} (${session.endReason ?? "no reason"})` : undefined,
    session.parentSessionId ? `parent ${session.parentSessionId}` : undefined,
    session.archived ? "archived" : undefined,
    session.pinned ? "pinned" : undefined,
  ].filter(Boolean);
  const title = session.title ? ` ${JSON.stringify(session.title)}` : "";
  return `${bold(`session ${session.id}`)}${title}\n${dim(facts.join(" · "))}`;
}

function toolCallsLine(calls: unknown[]): string {
  return calls
    .map((call) => {
      const fn = (call as { function?: { name?: unknown; arguments?: unknown } })?.function;
      if (fn && typeof fn.name === "string")
        return `${fn.name}(${oneLineCut(String(fn.arguments ?? ""), 120)})`;
      return oneLineCut(JSON.stringify(call), 120);
    })
    .join(", ");
}

function renderMessage(message: Message, full: boolean): string {
  const who = [
    `#${message.id}`,
    bold(message.role),
    message.toolName ? `(${message.toolName})` : "",
    message.toolCallId ? dim(`[${message.toolCallId}]`) : "",
    dim(time(message.timestamp)),
  ]
    .filter(Boolean)
    .join(" ");
  const lines = [who];
  let body = contentText(message.content);
  if (message.role === "tool" && !full) {
    const cut = shorten(body, TOOL_PREVIEW_LINES, TOOL_PREVIEW_CHARS);
    body =
      cut.omitted > 0
        ? `${cut.text}\n${dim(`… ${count(cut.omitted)} more characters (--full shows all)`)}`
        : cut.text;
  }
  if (body) lines.push(...body.split("\n").map((line) => `  ${line}`));
  if (message.toolCalls?.length) lines.push(`  → ${toolCallsLine(message.toolCalls)}`);
  return lines.join("\n");
}

export const sessionsShow: Command = {
  name: "sessions show",
  summary: "one session and its messages (tool output shortened unless --full)",
  usage: "sessions show ID [--full] [--limit N] [--json]",
  help: [
    "  --full      show tool output in full (human output shortens it to a few lines)",
    "  --limit N   only the first N messages",
    "",
    "--json prints { session, messages } with every message in full. Exit 7 when ID does not exist.",
  ].join("\n"),
  options: { full: { type: "boolean" }, limit: { type: "string" } },
  args: { min: 1, max: 1, names: "ID" },
  json: true,
  async run({ values, positionals, runtime }) {
    const id = positionals[0] as string;
    const limit = values.limit === undefined ? undefined : parsePositiveInt(String(values.limit), "--limit");
    const store = openFor(await runtime(), values, "read");
    try {
      const session = store.getSession(id);
      if (!session) {
        throw new ExitError(
          EXIT.NOT_FOUND,
          `no session ${JSON.stringify(id)} in ${store.path}`,
          "SESSION_NOT_FOUND",
        );
      }
      const messages = store.getMessages(id, limit ? { limit } : {});
      if (values.json) {
        printJson({ session, messages });
        return EXIT.OK;
      }
      print(header(session));
      for (const message of messages) print(`\n${renderMessage(message, values.full === true)}`);
      return EXIT.OK;
    } finally {
      store.close();
    }
  },
};
