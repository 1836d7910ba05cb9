import { ROLES, type Role, type SearchOptions } from "@sessiondb/core";
import { defineCommand } from "../command.js";
import { EXIT, UsageError } from "../exit.js";
import { bold, count, dim, highlight, plural, printJson, time } from "../format.js";
import { integer } from "../numbers.js";
import { openFor } from "../open.js";
import { writeErr } from "../output.js";
import { PAGER_OPTION, page } from "../pager.js";
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

const isRole = (text: string): text is Role => (ROLES as readonly string[]).includes(text);

export const search = defineCommand({
  name: "search",
  usage:
    "search QUERY [--role R]… [--source S]… [--session ID] [--since T] [--until T] [--sort rank|newest|oldest] [--limit N] [--offset N] [--substring] [--no-pager] [--json]",
  help: 'QUERY is words, "quoted phrases", AND/OR/NOT; stray punctuation is ignored.',
  options: {
    role: {
      type: "string",
      multiple: true,
      value: "R",
      help: "only this role (system, developer, user, assistant, tool); repeatable",
    },
    source: {
      type: "string",
      multiple: true,
      value: "S",
      help: "only sessions from this source; repeatable",
    },
    session: { type: "string", value: "ID", help: "only this session" },
    since: {
      type: "string",
      value: "T",
      parse: parseTime,
      help: "at or after T (2025-01-31, an ISO time, or epoch seconds)",
    },
    until: { type: "string", value: "T", parse: parseTime, help: "before T" },
    sort: { type: "string", value: "S", default: "rank", help: "rank (default), newest or oldest" },
    limit: {
      type: "string",
      value: "N",
      default: "20",
      parse: integer(),
      help: "at most N hits (default 20, at most 1,000: more is capped, with a warning)",
    },
    offset: { type: "string", value: "N", parse: integer(), help: "skip the first N hits" },
    substring: {
      type: "boolean",
      help: "match terms inside words (trigram index; LIKE for terms under 3 characters)",
    },
    ...PAGER_OPTION,
  },
  notes: [
    "Every result names its route: fts, trigram, like, or fts+like (while a backfill runs).",
    "Matches are marked « » (bold on a terminal).",
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
  args: { min: 1, max: Number.POSITIVE_INFINITY, names: "QUERY" },
  json: true,
  async run({ values, positionals, runtime }) {
    const query = positionals.join(" ");
    const roles = values.role ?? [];
    if (!roles.every(isRole)) {
      const unknown = roles.find((role) => !isRole(role));
      throw new UsageError(`--role must be one of ${ROLES.join(", ")}, got ${JSON.stringify(unknown)}`);
    }
    const sort = values.sort;
    if (sort !== "rank" && sort !== "newest" && sort !== "oldest")
      throw new UsageError(`--sort must be rank, newest or oldest, got ${JSON.stringify(sort)}`);
    const asked = values.limit;
    const limit = Math.min(asked, MAX_LIMIT);
    if (asked > MAX_LIMIT)
      writeErr(
        `sessiondb: --limit ${count(asked)} is capped at ${count(MAX_LIMIT)} hits; page on with --offset\n`,
      );
    const options: SearchOptions = {
      sort,
      ...(roles.length ? { roles } : {}),
      ...(values.source ? { sources: values.source } : {}),
      ...(values.session ? { sessionId: values.session } : {}),
      ...(values.since !== undefined ? { since: values.since } : {}),
      ...(values.until !== undefined ? { until: values.until } : {}),
      limit,
      ...(values.offset !== undefined ? { offset: values.offset } : {}),
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
});
