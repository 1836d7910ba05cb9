import { ROLES, type Role, type SearchOptions } from "@sessiondb/core";
import type { Command } from "../command.js";
import { EXIT, UsageError } from "../exit.js";
import { bold, count, dim, highlight, plural, printJson, time } from "../format.js";
import { openFor, parseNonNegativeInt } from "../open.js";
import { writeErr } from "../output.js";
import { PAGER_HELP, PAGER_OPTION, page } from "../pager.js";
import { visible } from "../visible.js";
import { parseTime } from "../when.js";

/** Hits one search shows at most (the Store caps a page at this too). */
const MAX_LIMIT = 1000;

const ROUTES: Record<string, string> = {
  fts: "full-text index (bm25)",
  trigram: "trigram index (substring)",
  like: "LIKE scan of the messages",
  "fts+like": "full-text index, topped up by LIKE over the rows a backfill has not reached",
};

export const search: Command = {
  name: "search",
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
    "  --limit N       at most N hits (default 20, at most 1,000: more is capped, with a warning)",
    "  --offset N      skip the first N hits",
    "  --substring     match terms inside words (trigram index; LIKE for terms under 3 characters)",
    "",
    "Every result names its route: fts, trigram, like, or fts+like (while a backfill runs).",
    "Matches are marked « » (bold on a terminal).",
    PAGER_HELP,
    "",
    "Tool output is searched by a prefix only: a word search reads the first 8,192 characters of",
    "each tool result, --substring reads none of it, and a word past the prefix is not found.",
    "--role tool (alone or with other roles) scans those roles' messages whole instead: every term",
    "matches as a substring, newest first; a rare term reads every message of those roles.",
    "",
    'The count says how many hits are shown and whether more match ("20 shown, more available":',
    "counting every match would run the whole query); --offset pages on. --json adds `more`.",
    "Errors go to stderr, also with --json (there as one JSON object {error:{code,exit,message}}):",
    "stdout carries results only, so a consumer never parses an error as a result.",
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
    ...PAGER_OPTION,
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
    const asked = values.limit === undefined ? 20 : parseNonNegativeInt(String(values.limit), "--limit");
    const limit = Math.min(asked, MAX_LIMIT);
    if (asked > MAX_LIMIT)
      writeErr(
        `sessiondb: --limit ${count(asked)} is capped at ${count(MAX_LIMIT)} hits; page on with --offset\n`,
      );
    const options: SearchOptions = {
      sort: sort as SearchOptions["sort"],
      ...(roles.length ? { roles: roles as Role[] } : {}),
      ...(values.source ? { sources: values.source as string[] } : {}),
      ...(values.session ? { sessionId: String(values.session) } : {}),
      ...(values.since ? { since: parseTime(String(values.since), "--since") } : {}),
      ...(values.until ? { until: parseTime(String(values.until), "--until") } : {}),
      limit,
      ...(values.offset !== undefined
        ? { offset: parseNonNegativeInt(String(values.offset), "--offset") }
        : {}),
      ...(values.substring ? { substring: true } : {}),
    };
    const { store } = await openFor(runtime, values, "read");
    try {
      const result = await store.search(query, options);
      // Whether anything lies past this page: one more hit, asked for right after it.
      const more =
        limit > 0 &&
        result.hits.length === limit &&
        (await store.search(query, { ...options, limit: 1, offset: (options.offset ?? 0) + limit })).hits
          .length > 0;
      if (values.json) {
        printJson({ query, route: result.route, hits: result.hits, more });
        return EXIT.OK;
      }
      const n = result.hits.length;
      const shown = more
        ? `${count(n)} shown, more available (--offset ${(options.offset ?? 0) + n})`
        : plural(n, "hit");
      let text = dim(`${shown} · route ${result.route}: ${ROUTES[result.route] ?? result.route}`);
      for (const hit of result.hits) {
        const tool = hit.toolName ? ` (${visible(hit.toolName)})` : "";
        text += `\n\n${bold(hit.role)}${tool} ${dim(`${visible(hit.sessionId)} #${hit.messageId} ${time(hit.timestamp)}`)}`;
        text += `\n  ${highlight(hit.snippet)}`;
      }
      await page(`${text}\n`, values);
      return EXIT.OK;
    } finally {
      await store.close();
    }
  },
};
