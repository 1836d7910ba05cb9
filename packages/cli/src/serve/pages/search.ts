/** Search: the store's own search, its route named, hits highlighted and linked to their message. */
import { ROLES, type Role, type SearchHit, type SearchOptions, type Session } from "@sessiondb/core";
import { count } from "../../format.js";
import type { CliStore } from "../../server.js";
import { facets } from "../data.js";
import { escapeHtml, type Html, html, raw } from "../html.js";
import { messageHref, page, query, type Site, sessionHref, when } from "../layout.js";
import { BadRequest, day, oneOf, type Params, pageNumber, text } from "../params.js";

const HITS_PER_PAGE = 20;

/** What each route means, for the line above the hits. */
const ROUTES: Record<string, string> = {
  fts: "full-text index, ranked by bm25",
  trigram: "trigram index (substring match)",
  like: "a scan of the messages (LIKE)",
  "fts+like": "full-text index, topped up by a scan of the rows a backfill has not indexed yet",
};

/** Case and accents folded away, as the store's tokenizer (unicode61, remove_diacritics) does. */
const fold = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

/** The words of a query, folded: what a match the store marked must contain. */
export function queryWords(q: string): string[] {
  return fold(q)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "" && w !== "and" && w !== "or" && w !== "not");
}

/**
 * A snippet with the store's match markers turned into <mark>, everything else escaped.
 * The store marks matches with « », which stored text may hold too (core offers no other
 * markers). A marked match holds no guillemet of its own and contains one of the query's words
 * (the store matches words, prefixes and substrings of them); any other guillemet is text and
 * stays so — `«fake»` in a message is never marked unless it is what was searched for.
 */
export function markSnippet(snippet: string, words: readonly string[]): Html {
  const isMatch = (part: string) => words.some((w) => fold(part).includes(w));
  return raw(
    snippet
      .split(/(«[^«»]*»)/)
      .map((part) =>
        part.startsWith("«") && part.endsWith("»") && isMatch(part.slice(1, -1))
          ? `<mark>${escapeHtml(part.slice(1, -1))}</mark>`
          : escapeHtml(part),
      )
      .join(""),
  );
}

function hit(h: SearchHit, session: Session | undefined, words: readonly string[]): Html {
  return html`<article class="hit"><div class="head sub"><span class="role ${h.role}">${h.role}</span>${h.toolName ? html` <span class="mono">${h.toolName}</span>` : ""}
 · <a href="${sessionHref(h.sessionId)}">${session?.title ?? h.sessionId}</a>${session ? html` · <span class="tag">${session.source}</span>` : ""} · ${when(h.timestamp)}
 · <a class="open" href="${messageHref(h.sessionId, h.messageId)}">message #${h.messageId} →</a></div>
<div class="snippet">${markSnippet(h.snippet.replace(/\s*\n\s*/g, " "), words)}</div></article>`;
}

export async function searchPage(store: CliStore, params: Params, site: Site): Promise<Html> {
  const q = text(params.one("q"), 1000);
  const roles = params.many("role").filter((r) => r !== "");
  for (const r of roles)
    if (!ROLES.includes(r as Role)) throw new BadRequest(`role must be one of ${ROLES.join(", ")}`);
  const source = text(params.one("source"));
  const sinceText = text(params.one("since"));
  const untilText = text(params.one("until"));
  const since = day(sinceText, "since");
  const until = day(untilText, "until", 1);
  const sort = oneOf(params.one("sort"), ["rank", "newest", "oldest"] as const, "rank", "sort");
  const substring = params.one("substring") === "1";
  const pageNo = pageNumber(params.one("page"));
  const menus = await facets(store);
  let results: Html | "" = "";
  if (q) {
    const options: SearchOptions = {
      limit: HITS_PER_PAGE + 1,
      offset: (pageNo - 1) * HITS_PER_PAGE,
      sort,
      ...(roles.length ? { roles: roles as Role[] } : {}),
      ...(source ? { sources: [source] } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(until !== undefined ? { until } : {}),
      ...(substring ? { substring: true } : {}),
    };
    const result = await store.search(q, options);
    const hits = result.hits.slice(0, HITS_PER_PAGE);
    const sessions = new Map<string, Session | undefined>();
    for (const h of hits)
      if (!sessions.has(h.sessionId)) sessions.set(h.sessionId, await store.getSession(h.sessionId));
    const keep = {
      q,
      role: roles,
      source,
      since: sinceText,
      until: untilText,
      sort: sort === "rank" ? undefined : sort,
      substring: substring ? "1" : undefined,
    };
    const first = (pageNo - 1) * HITS_PER_PAGE + 1;
    results = html`<div class="route" id="route">Route <b>${result.route}</b>: ${ROUTES[result.route] ?? result.route}
 · ${hits.length ? `hits ${count(first)}–${count(first + hits.length - 1)}` : "no hits"}</div>
<section class="hits">${hits.map((h) => hit(h, sessions.get(h.sessionId), queryWords(q)))}</section>
<div class="pager">${pageNo > 1 ? html`<a rel="prev" href="/search${query({ ...keep, page: pageNo - 1 })}">← Previous</a>` : ""}
${result.hits.length > HITS_PER_PAGE ? html`<a rel="next" href="/search${query({ ...keep, page: pageNo + 1 })}">Next →</a>` : ""}</div>`;
  }
  const body = html`<h1>Search</h1>
<div class="sub">Words, "quoted phrases", AND / OR / NOT. Tick substring to match inside words.</div>
<form class="filters" method="get" action="/search" role="search">
<label class="grow">Query<input type="search" name="q" value="${q ?? ""}" autofocus></label>
<label>Source<select name="source"><option value="">all</option>${menus.sources.map((s) => html`<option${s === source ? " selected" : ""}>${s}</option>`)}</select></label>
<label>From<input type="date" name="since" value="${sinceText ?? ""}"></label>
<label>to<input type="date" name="until" value="${untilText ?? ""}"></label>
<label>Sort<select name="sort">${(["rank", "newest", "oldest"] as const).map((s) => html`<option${s === sort ? " selected" : ""}>${s}</option>`)}</select></label>
<label class="check"><input type="checkbox" name="substring" value="1"${substring ? " checked" : ""}> substring</label>
<fieldset class="roles"><legend>Roles</legend>${ROLES.map((r) => html`<label class="check"><input type="checkbox" name="role" value="${r}"${roles.includes(r) ? " checked" : ""}> ${r}</label>`)}</fieldset>
<button type="submit">Search</button>
</form>
${results}`;
  return page({ title: q ? `Search: ${q}` : "Search", section: "search", body, site });
}
