/** The session list: filters, sort and paging over the Store's listing. */
import type { SessionSummary } from "@sessiondb/core";

import { count } from "../../format.js";
import type { CliStore } from "../../server.js";
import {
  endedWithError,
  facets,
  LIST_PAGE,
  listSessions,
  SESSION_SORTS,
  type SessionFilter,
  tokensOf,
} from "../data.js";
import { type Html, html } from "../html.js";
import { compact, dollars, page, query, type Site, sessionHref, when } from "../layout.js";
import { day, oneOf, type Params, pageNumber, text } from "../params.js";

const SORT_LABELS: Record<string, string> = {
  started: "Newest first",
  activity: "Recently active",
  messages: "Most messages",
  tokens: "Most tokens",
  cost: "Highest cost",
};

function readFilter(params: Params): SessionFilter & { fromText?: string; toText?: string } {
  const fromText = text(params.one("from"));
  const toText = text(params.one("to"));
  const source = text(params.one("source"));
  const model = text(params.one("model"));
  const parent = text(params.one("parent"));
  const from = day(fromText, "from");
  const to = day(toText, "to", 1);
  return {
    ...(source ? { source } : {}),
    ...(model ? { model } : {}),
    ...(parent ? { parent } : {}),
    ...(from !== undefined ? { from, fromText } : {}),
    ...(to !== undefined ? { to, toText } : {}),
    errors: params.one("errors") === "1",
    archived: params.one("archived") === "1",
    sort: oneOf(params.one("sort"), SESSION_SORTS, "started", "sort"),
    page: pageNumber(params.one("page")),
  };
}

function row(s: SessionSummary): Html {
  const label = s.title ?? s.preview ?? "(no user message)";
  return html`<tr>
<td class="title"><a href="${sessionHref(s.id)}">${label.length > 140 ? `${label.slice(0, 139)}…` : label}</a>
<span class="id mono">${s.id}${s.parentSessionId ? html` · child of <a href="${sessionHref(s.parentSessionId)}">${s.parentSessionId}</a>` : ""}${
    s.archived ? " · archived" : ""
  }${endedWithError(s) ? html` <span class="tag err">${s.endReason}</span>` : ""}</span></td>
<td><span class="tag">${s.source}</span></td>
<td class="mono model hide-narrow">${s.model ?? "–"}</td>
<td class="num">${count(s.messageCount)}</td>
<td class="num hide-narrow">${count(s.toolCallCount)}</td>
<td class="num">${compact(tokensOf(s))}</td>
<td class="num hide-narrow">${dollars(s.estimatedCostUsd)}</td>
<td class="when">${when(s.startedAt)}</td>
<td class="when hide-narrow">${when(s.lastActiveAt)}</td>
</tr>`;
}

export async function sessionsPage(store: CliStore, params: Params, site: Site): Promise<Html> {
  const filter = readFilter(params);
  const [{ sessions, total, hasNext }, menus] = [await listSessions(store, filter), await facets(store)];
  const keep = {
    source: filter.source,
    model: filter.model,
    from: filter.fromText,
    to: filter.toText,
    errors: filter.errors ? "1" : undefined,
    archived: filter.archived ? "1" : undefined,
    parent: filter.parent,
    sort: filter.sort === "started" ? undefined : filter.sort,
  };
  const first = (filter.page - 1) * LIST_PAGE + 1;
  const range = sessions.length
    ? `${count(first)}–${count(first + sessions.length - 1)}${total !== undefined ? ` of ${count(total)}` : ""}`
    : "none";
  const option = (value: string, current: string | undefined, label = value) =>
    html`<option value="${value}"${value === current ? " selected" : ""}>${label}</option>`;
  const body = html`<h1>Sessions</h1>
<div class="sub">${count(menus.sessions)} sessions in this store${filter.parent ? html` · children of <a href="${sessionHref(filter.parent)}">${filter.parent}</a>` : ""}</div>
<form class="filters" method="get" action="/sessions">
<label>Source<select name="source"><option value="">all</option>${menus.sources.map((s) => option(s, filter.source))}</select></label>
<label>Model<select name="model"><option value="">all</option>${menus.models.map((m) => option(m, filter.model))}</select></label>
<label>Started from<input type="date" name="from" value="${filter.fromText ?? ""}"></label>
<label>to<input type="date" name="to" value="${filter.toText ?? ""}"></label>
<label>Sort<select name="sort">${SESSION_SORTS.map((s) => option(s, filter.sort, SORT_LABELS[s]))}</select></label>
<label class="check"><input type="checkbox" name="errors" value="1"${filter.errors ? " checked" : ""}> ended with an error</label>
<label class="check"><input type="checkbox" name="archived" value="1"${filter.archived ? " checked" : ""}> include archived</label>
${filter.parent ? html`<input type="hidden" name="parent" value="${filter.parent}">` : ""}
<button type="submit">Apply</button> <a class="button plain" href="/sessions">Reset</a>
</form>
${
  sessions.length === 0
    ? html`<div class="panel empty">No sessions match these filters.</div>`
    : html`<table class="list" id="sessions">
<thead><tr><th>Session</th><th>Source</th><th class="hide-narrow">Model</th><th class="num">Msgs</th><th class="num hide-narrow">Tools</th><th class="num">Tokens</th><th class="num hide-narrow">Cost</th><th>Started</th><th class="hide-narrow">Last active</th></tr></thead>
<tbody>${sessions.map(row)}</tbody></table>`
}
<div class="pager"><span>${range}</span>
${filter.page > 1 ? html`<a rel="prev" href="/sessions${query({ ...keep, page: filter.page - 1 })}">← Previous</a>` : ""}
${hasNext ? html`<a rel="next" href="/sessions${query({ ...keep, page: filter.page + 1 })}">Next →</a>` : ""}</div>`;
  return page({ title: "Sessions", section: "sessions", body, site });
}
