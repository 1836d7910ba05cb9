import type { Message, Session, SessionSummary } from "@sessiondb/core";
import type { Command, CommandContext } from "../command.js";
import { EXIT, ExitError, UsageError } from "../exit.js";
import {
  bold,
  contentText,
  count,
  dim,
  oneLineCut,
  plural,
  print,
  printJson,
  shorten,
  table,
  time,
  usd,
} from "../format.js";
import { exactCost } from "../money.js";
import { openFor, parseNonNegativeInt, parsePositiveInt } from "../open.js";
import { PAGER_HELP, PAGER_OPTION, page } from "../pager.js";
import { tokensOf } from "../serve/data.js";
import type { CliStore } from "../server.js";
import { toolCallText } from "../tool-call.js";
import { visible } from "../visible.js";
import { timeRange } from "../when.js";
import { terminalWidth, wrapLine } from "../width.js";

/** Search hits read per page when --search collects the sessions it matches. */
const SEARCH_PAGE = 1000;

interface ListFilter {
  model?: string;
  since?: number;
  until?: number;
  minCost?: number;
  minTokens?: number;
  search?: string;
}

/** Ids of the sessions with a message that matches `text` (every hit, read a page at a time). */
async function sessionsMatching(
  store: CliStore,
  text: string,
  source: string | undefined,
): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let offset = 0; ; offset += SEARCH_PAGE) {
    const { hits } = await store.search(text, {
      limit: SEARCH_PAGE,
      offset,
      sort: "newest",
      ...(source ? { sources: [source] } : {}),
    });
    for (const hit of hits) ids.add(hit.sessionId);
    if (hits.length < SEARCH_PAGE) return ids;
  }
}

/** The filters the Store does not apply itself, checked on each session of a full listing. */
async function matcher(
  store: CliStore,
  filter: ListFilter,
  source: string | undefined,
): Promise<(s: SessionSummary) => boolean> {
  const model = filter.model?.toLowerCase();
  const needle = filter.search?.toLowerCase();
  const hits = filter.search === undefined ? undefined : await sessionsMatching(store, filter.search, source);
  return (s) =>
    (model === undefined || (s.model ?? "").toLowerCase().includes(model)) &&
    (filter.since === undefined || s.startedAt >= filter.since) &&
    (filter.until === undefined || s.startedAt < filter.until) &&
    (filter.minCost === undefined || s.estimatedCostUsd >= filter.minCost) &&
    (filter.minTokens === undefined || tokensOf(s) >= filter.minTokens) &&
    (needle === undefined || hits?.has(s.id) === true || (s.title ?? "").toLowerCase().includes(needle));
}

function parseMinimum(text: string, name: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || n < 0)
    throw new UsageError(`${name} expects a non-negative number, got ${JSON.stringify(text)}`);
  return n;
}

export const sessionsList: Command = {
  name: "sessions list",
  usage:
    "sessions list [--source S] [--model M] [--since T] [--until T] [--min-cost USD] [--min-tokens N] [--search TEXT] [--limit N] [--offset N] [--order started|activity] [--archived] [--no-pager] [--json]",
  help: [
    "  --source S       only sessions from this source (cli, gateway, cron, …)",
    "  --model M        only sessions whose model contains M (any case)",
    "  --since T        started at or after T (2025-01-31, an ISO time, or epoch seconds)",
    "  --until T        started before T",
    "  --min-cost USD   recorded cost at least USD",
    "  --min-tokens N   recorded tokens (input, output, cache, reasoning) at least N",
    "  --search TEXT    a message matches TEXT (full-text search) or the title contains it",
    "  --limit N        at most N sessions (default 50)",
    "  --offset N       skip the first N",
    "  --order O        started (default) or activity (last message first)",
    "  --archived       include archived sessions",
    PAGER_HELP,
    "",
    'A cut page ends with "50 of 292 sessions". The filters other than --source read the whole',
    "session list (and, for --search, every hit) in this process.",
    "--json prints { sessions, total }: the page, and how many sessions the filters match.",
  ].join("\n"),
  options: {
    source: { type: "string" },
    model: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    "min-cost": { type: "string" },
    "min-tokens": { type: "string" },
    search: { type: "string" },
    limit: { type: "string" },
    offset: { type: "string" },
    order: { type: "string" },
    archived: { type: "boolean" },
    ...PAGER_OPTION,
  },
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const order = (values.order as string | undefined) ?? "started";
    if (order !== "started" && order !== "activity")
      throw new UsageError(`--order must be "started" or "activity", got ${JSON.stringify(order)}`);
    const limit = values.limit === undefined ? 50 : parseNonNegativeInt(String(values.limit), "--limit");
    const offset = values.offset === undefined ? 0 : parseNonNegativeInt(String(values.offset), "--offset");
    const filter: ListFilter = {
      ...timeRange(values),
      ...(values.model !== undefined ? { model: String(values.model) } : {}),
      ...(values["min-cost"] !== undefined
        ? { minCost: parseMinimum(String(values["min-cost"]), "--min-cost") }
        : {}),
      ...(values["min-tokens"] !== undefined
        ? { minTokens: parseNonNegativeInt(String(values["min-tokens"]), "--min-tokens") }
        : {}),
      ...(values.search !== undefined ? { search: String(values.search) } : {}),
    };
    const source = values.source ? String(values.source) : undefined;
    const { store } = await openFor(runtime, values, "read");
    try {
      const base = {
        orderBy: order,
        includeArchived: values.archived === true,
        ...(source ? { source } : {}),
      } as const;
      const everything = async () => await store.listSessions({ ...base, limit: Number.MAX_SAFE_INTEGER });
      let sessions: SessionSummary[];
      let total: number;
      if (Object.keys(filter).length > 0) {
        const all = (await everything()).filter(await matcher(store, filter, source));
        sessions = all.slice(offset, offset + limit);
        total = all.length;
      } else {
        // One more than asked tells whether the page is cut (the largest limit has no "one
        // more": no store holds that many). Only a cut page, or an empty one past the start
        // (the offset may lie past the end), needs the rest counted.
        const rows = await store.listSessions({
          ...base,
          limit: Math.min(limit + 1, Number.MAX_SAFE_INTEGER),
          offset,
        });
        sessions = rows.slice(0, limit);
        const counted = rows.length > limit || (rows.length === 0 && offset > 0);
        total = counted ? (await everything()).length : offset + sessions.length;
      }
      if (values.json) {
        printJson({ sessions: sessions.map(exactCost), total });
        return EXIT.OK;
      }
      if (sessions.length === 0) {
        print(
          total === 0
            ? "no sessions"
            : offset >= total
              ? `no sessions past --offset ${count(offset)} (${plural(total, "session")})`
              : `0 of ${plural(total, "session")} (--limit 0)`,
        );
        return EXIT.OK;
      }
      const rows = sessions.map((s) => [
        s.id,
        s.source,
        time(order === "activity" ? s.lastActiveAt : s.startedAt),
        count(s.messageCount),
        count(tokensOf(s)),
        usd(s.estimatedCostUsd),
        (s.archived ? "[archived] " : "") + (s.title ?? s.preview ?? "").replace(/\s+/g, " ").trim(),
      ]);
      const header = [
        "ID",
        "SOURCE",
        order === "activity" ? "LAST ACTIVE" : "STARTED",
        "MSGS",
        "TOKENS",
        "COST",
        "TITLE / FIRST MESSAGE",
      ];
      let text = table(header, rows, { right: [3, 4, 5], flex: 6, width: terminalWidth() });
      if (sessions.length < total) {
        const next =
          offset + sessions.length < total ? ` · --offset ${offset + sessions.length} for more` : "";
        text += `\n${dim(`${count(sessions.length)} of ${plural(total, "session")}${next}`)}`;
      }
      await page(`${text}\n`, values);
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
};

/** Lines of tool output shown before shortening (unless --full). */
const TOOL_PREVIEW_LINES = 8;
const TOOL_PREVIEW_CHARS = 800;
/** The system prompt is folded to this much (unless --full): it is long and rarely the point. */
const SYSTEM_PREVIEW_LINES = 2;
const SYSTEM_PREVIEW_CHARS = 240;
/** Messages read per page when walking a session. */
const MESSAGE_PAGE = 1000;

function header(session: Session): string {
  const facts = [
    session.source,
    session.model,
    `started ${time(session.startedAt)}`,
    plural(session.messageCount, "message"),
    session.toolCallCount ? plural(session.toolCallCount, "tool call") : undefined,
    session.endedAt ? `ended ${time(session.endedAt)} (${session.endReason ?? "no reason"})` : undefined,
    session.parentSessionId ? `parent ${session.parentSessionId}` : undefined,
    session.archived ? "archived" : undefined,
    session.pinned ? "pinned" : undefined,
  ].filter(Boolean);
  const usage = [
    `${count(tokensOf(session))} tokens`,
    `${count(session.inputTokens)} in`,
    `${count(session.outputTokens)} out`,
    `${count(session.cacheReadTokens + session.cacheWriteTokens)} cache`,
    `${count(session.reasoningTokens)} reasoning`,
    `cost ${usd(session.estimatedCostUsd)}`,
  ];
  const title = session.title ? ` ${visible(JSON.stringify(session.title))}` : "";
  return `${bold(`session ${visible(session.id)}`)}${title}\n${dim(visible(facts.join(" · ")))}\n${dim(usage.join(" · "))}`;
}

function toolCallsLine(calls: unknown[]): string {
  return calls.map((call) => oneLineCut(toolCallText(call), 160)).join(", ");
}

/** `body` cut to a preview with a note on what --full would add. */
function folded(body: string, lines: number, chars: number): string {
  const cut = shorten(body, lines, chars);
  return cut.omitted > 0
    ? `${cut.text}\n${dim(`… ${count(cut.omitted)} more characters (--full shows all)`)}`
    : cut.text;
}

/** A message as text; lines wrapped to `width` columns when the terminal's width is known. */
function renderMessage(message: Message, full: boolean, width: number | undefined): string {
  const who = [
    `#${message.id}`,
    bold(message.role),
    message.toolName ? `(${visible(message.toolName)})` : "",
    message.toolCallId ? dim(`[${visible(message.toolCallId)}]`) : "",
    dim(time(message.timestamp)),
  ]
    .filter(Boolean)
    .join(" ");
  const lines = [who];
  let body = visible(contentText(message.content));
  if (!full && message.role === "tool") body = folded(body, TOOL_PREVIEW_LINES, TOOL_PREVIEW_CHARS);
  if (!full && (message.role === "system" || message.role === "developer"))
    body = folded(body, SYSTEM_PREVIEW_LINES, SYSTEM_PREVIEW_CHARS);
  const indent = (line: string) =>
    (width === undefined ? [line] : wrapLine(line, width - 2)).map((part) => `  ${part}`);
  if (body) lines.push(...body.split("\n").flatMap(indent));
  if (message.toolCalls?.length) lines.push(...indent(`→ ${toolCallsLine(message.toolCalls)}`));
  return lines.join("\n");
}

/** Which messages to show: all, the first N, the last N, or an id range. */
type Selection =
  | { kind: "all" }
  | { kind: "first"; n: number }
  | { kind: "last"; n: number }
  | { kind: "range"; from: number; to: number };

function selection(values: CommandContext["values"]): Selection {
  const given = ["limit", "last", "range"].filter((k) => values[k] !== undefined);
  if (values.from !== undefined || values.to !== undefined) given.push("from/--to");
  if (given.length > 1)
    throw new UsageError(`choose one of --${given.join(", --")}: they select messages differently`);
  if (values.limit !== undefined)
    return { kind: "first", n: parsePositiveInt(String(values.limit), "--limit") };
  if (values.last !== undefined) return { kind: "last", n: parsePositiveInt(String(values.last), "--last") };
  if (values.range !== undefined) {
    const match = /^(\d*)\.\.(\d*)$/.exec(String(values.range));
    if (!match || (match[1] === "" && match[2] === ""))
      throw new UsageError(
        `--range expects FROM..TO message ids (either end may be left open), got ${JSON.stringify(values.range)}`,
      );
    return rangeOf(match[1] || undefined, match[2] || undefined, "--range");
  }
  if (values.from !== undefined || values.to !== undefined)
    return rangeOf(values.from as string | undefined, values.to as string | undefined, "--from/--to");
  return { kind: "all" };
}

function rangeOf(from: string | undefined, to: string | undefined, name: string): Selection {
  const first = from === undefined ? 0 : parseNonNegativeInt(from, name);
  const last = to === undefined ? Number.MAX_SAFE_INTEGER : parseNonNegativeInt(to, name);
  if (first > last) throw new UsageError(`${name}: the range starts after it ends (${first} > ${last})`);
  return { kind: "range", from: first, to: last };
}

/** The selected messages: the first or last N in one read, a range or all of them a page at a time. */
async function readMessages(store: CliStore, id: string, chosen: Selection): Promise<Message[]> {
  if (chosen.kind === "first") return await store.getMessages(id, { limit: chosen.n });
  // Read from the end: the time it takes grows with N, not with the session.
  if (chosen.kind === "last") return await store.getMessages(id, { last: chosen.n });
  const out: Message[] = [];
  let afterId = chosen.kind === "range" ? Math.max(0, chosen.from - 1) : 0;
  for (;;) {
    const page = await store.getMessages(id, { afterId, limit: MESSAGE_PAGE });
    for (const m of page) {
      if (chosen.kind === "range" && m.id > chosen.to) return out;
      out.push(m);
    }
    const last = page.at(-1);
    if (page.length < MESSAGE_PAGE || !last) return out;
    afterId = last.id;
  }
}

export const sessionsShow: Command = {
  name: "sessions show",
  usage:
    "sessions show ID [--full] [--limit N | --last N | --from ID --to ID | --range A..B] [--no-pager] [--json]",
  help: [
    "  --full         tool output and the system prompt in full (otherwise their first lines)",
    "  --limit N      only the first N messages",
    "  --last N       only the last N messages",
    "  --from ID      messages from this message id (the #N shown before each message) …",
    "  --to ID        … up to this one, inclusive; either may be left out",
    "  --range A..B   the same as --from A --to B; A.. and ..B leave one end open",
    PAGER_HELP,
    "",
    "On a terminal, long lines are wrapped to its width.",
    "--json prints { session, messages } with every message in full. Exit 7 when ID does not exist.",
  ].join("\n"),
  options: {
    full: { type: "boolean" },
    limit: { type: "string" },
    last: { type: "string" },
    from: { type: "string" },
    to: { type: "string" },
    range: { type: "string" },
    ...PAGER_OPTION,
  },
  args: { min: 1, max: 1, names: "ID" },
  json: true,
  async run({ values, positionals, runtime }) {
    const id = positionals[0] as string;
    const chosen = selection(values);
    const { store, shown } = await openFor(runtime, values, "read");
    try {
      const session = await store.getSession(id);
      if (!session) {
        throw new ExitError(
          EXIT.NOT_FOUND,
          `no session ${JSON.stringify(id)} in ${shown}`,
          "SESSION_NOT_FOUND",
        );
      }
      const messages = await readMessages(store, id, chosen);
      if (values.json) {
        printJson({ session: exactCost(session), messages });
        return EXIT.OK;
      }
      const width = terminalWidth();
      let text = header(session);
      if (chosen.kind !== "all") {
        const span = messages.length ? ` (#${messages[0]?.id}–#${messages.at(-1)?.id})` : "";
        text += `\n${dim(`showing ${count(messages.length)} of ${plural(session.messageCount, "message")}${span}`)}`;
      }
      for (const message of messages) text += `\n\n${renderMessage(message, values.full === true, width)}`;
      await page(`${text}\n`, values);
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
};
