/** The page shell every view shares (head, navigation, footer) and small view helpers. */
import { count } from "../format.js";
import { ASSET_URL } from "./assets.js";
import { type Html, html, type Part, raw } from "./html.js";

export type Section = "sessions" | "search" | "usage" | "health" | "none";

const NAV: ReadonlyArray<[Section, string, string]> = [
  ["sessions", "/sessions", "Sessions"],
  ["search", "/search", "Search"],
  ["usage", "/usage", "Usage"],
  ["health", "/health", "Health"],
];

/** What the pages say about the store being shown. */
export interface Site {
  /** Its file name (never the full path), or its server's host. */
  store: string;
  /** Whether this server may change it (--allow-write). */
  writable: boolean;
}

/** How a page names the server's mode. */
export function mode(site: Site): string {
  return site.writable ? "read-write" : "read-only";
}

export interface PageInput {
  title: string;
  section: Section;
  body: Part;
  /** Shown in the footer: which store, and the mode (error pages, made before a route, have none). */
  site?: Site;
}

/** A whole HTML document. */
export function page({ title, section, body, site }: PageInput): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · sessiondb</title>
<link rel="icon" href="${ASSET_URL.icon}">
<link rel="stylesheet" href="${ASSET_URL.style}">
<script src="${ASSET_URL.script}" defer></script>
</head>
<body>
<header class="top"><div class="bar">
<a class="brand" href="/sessions">session<span>db</span></a>
<nav class="main">${NAV.map(([key, href, label]) => html`<a href="${href}"${section === key ? html` class="on" aria-current="page"` : ""}>${label}</a>`)}</nav>
<form class="quick" action="/search" method="get" role="search"><input type="search" name="q" placeholder="Search messages  ( / )" aria-label="Search messages"></form>
</div></header>
<main>
${body}
</main>
<footer>sessiondb serve${site ? html` · ${site.store} · ${mode(site)}` : ""}</footer>
</body>
</html>`;
}

/** A page's markup before and after its body, for a page sent in parts (a transcript streams).
 * The marker is a comment: escaped content can never contain it, since every `<` is escaped. */
export function pageShell(input: Omit<PageInput, "body">): [string, string] {
  const marker = "<!--body-->";
  const [before = "", after = ""] = page({ ...input, body: raw(marker) })
    .toString()
    .split(marker);
  return [before, after];
}

/** Epoch seconds → `<time>` showing UTC (the script switches it to local time). */
export function when(
  seconds: number | null | undefined,
  form: "datetime" | "clock" = "datetime",
): Html | string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "–";
  const iso = new Date(seconds * 1000).toISOString();
  const text = form === "clock" ? iso.slice(11, 19) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  return html`<time datetime="${iso}" data-form="${form}" title="${iso}">${text}</time>`;
}

/** Token totals as "12.3k". */
export function compact(n: number): string {
  if (n < 1000) return count(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1)}M`;
}

/** US dollars with precision that suits small amounts. */
export function dollars(n: number): string {
  if (n === 0) return "$0";
  return n < 1 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

/** A query string from parameters, dropping empty ones. */
export function query(params: Record<string, string | number | readonly string[] | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === "") continue;
    if (Array.isArray(value)) for (const v of value) search.append(key, v);
    else search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** Link to a session's transcript. */
export function sessionHref(id: string): string {
  return `/sessions/${encodeURIComponent(id)}`;
}

/** Deep link to one message (redirects to the transcript page that holds it). */
export function messageHref(sessionId: string, messageId: number): string {
  return `${sessionHref(sessionId)}/messages/${messageId}`;
}
