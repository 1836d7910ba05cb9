import { ROLES, type Role, type SearchOptions } from "@sessiondb/core";
import type { Command } from "../command.js";
import { EXIT, UsageError } from "../exit.js";
import { bold, count, dim, highlight, print, printJson, time } from "../format.js";
import { openFor, parseNonNegativeInt } from "../open.js";

/** "2025-01-31" or "2025-01-31T12:00:00Z" or epoch seconds → epoch seconds. */
function parseTime(text: string, name: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw new UsageError(
      `${name} expects a date (2025-01-31, an ISO time) or epoch seconds, got ${JSON.stringify(text)}`,
    );
  return ms / 1000;
}

const ROUTES: Record<string, string> = {
  fts: "full-text index (bm25)",
  trigram: "trigram index (substring)",
  like: "LIKE scan of the messages",
  "fts+like": "full-text index, topped up by LIKE over the rows a backfill has not reached",
};

export const search: Command = {
  name: "search",
  summary: "full-text search with highlighted snippets and the route taken",
  usage:
    "search QUERY [--role R]… [--source S]… [--session ID] [--since T] [--until T] [--sort rank|newest|oldest] [--limit N] [--offset N] [--substring] [--json]",
  help: [
    'QUERY is words, "quoted phrases", AND/OR/NOT; stray punctuation is ignored.',
    "",
    "  --role R        only this role (system, developer, user, assistant, tool); repeatable",
    "  --source S      only sessions from this source; repeatable",
    "  --session ID    only this session",
    "  --since T       at or after T (2025-01-31, an ISO time, or epoch seconds)",
    "  --until T       before T",
    "  --sort S        rank (default), newest or oldest",
    "  --limit N       at most N hits (default 20)",
    "  --offset N      skip the first N hits",
    "  --substring     match terms inside words (trigram index; LIKE for terms under 3 characters)",
    "",
    "Every result names its route: fts, trigram, like, or fts+like (while a backfill runs).",
    "Matches are marked « » (bold on a terminal).",
  ].join("\n"),
  options: {
    role: { type: "string", multiple: true },
    source: { type: "string", multiple: true },
    session: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    sort: { type: "string" },
    limit: { type: "string" },
    offset: { type: "string" },
    substring: { type: "boolean" },
  },
  args: { min: 1, max: Number.POSITIVE_INFINITY, names: "QUERY" },
  json: true,
  async run({ values, positionals, runtime }) {
    const query = positionals.join(" ");
    const roles = (values.role as string[] | undefined) ?? [];
    for (const role of roles) {
      if (!ROLES.includes(role as Role))
        throw new UsageError(`--role must be one of ${ROLES.join(", ")}, got ${JSON.stringify(role)}`);
    }
    const sort = (values.sort as string | undefined) ?? "rank";
    if (!["rank", "newest", "oldest"].includes(sort))
      throw new UsageError(`--sort must be rank, newest or oldest, got ${JSON.stringify(sort)}`);
    const options: SearchOptions = {
      sort: sort as SearchOptions["sort"],
      ...(roles.length ? { roles: roles as Role[] } : {}),
      ...(values.source ? { sources: values.source as string[] } : {}),
      ...(values.session ? { sessionId: String(values.session) } : {}),
      ...(values.since ? { since: parseTime(String(values.since), "--since") } : {}),
      ...(values.until ? { until: parseTime(String(values.until), "--until") } : {}),
      ...(values.limit !== undefined ? { limit: parseNonNegativeInt(String(values.limit), "--limit") } : {}),
      ...(values.offset !== undefined
        ? { offset: parseNonNegativeInt(String(values.offset), "--offset") }
        : {}),
      ...(values.substring ? { substring: true } : {}),
    };
    const store = openFor(await runtime(), values, "read");
    try {
      const result = store.search(query, options);
      if (values.json) {
        printJson({ query, route: result.route, hits: result.hits });
        return EXIT.OK;
      }
      const n = result.hits.length;
      print(
        dim(
          `${count(n)} hit${n === 1 ? "" : "s"} · route ${result.route}: ${ROUTES[result.route] ?? result.route}`,
        ),
      );
      for (const hit of result.hits) {
        const tool = hit.toolName ? ` (${hit.toolName})` : "";
        print(
          `\n${bold(hit.role)}${tool} ${dim(`${hit.sessionId} #${hit.messageId} ${time(hit.timestamp)}`)}`,
        );
        print(`  ${highlight(hit.snippet.replace(/\s*\n\s*/g, " "))}`);
      }
      return EXIT.OK;
    } finally {
      store.close();
    }
  },
};
