/**
 * One session's transcript: roles set apart, markdown rendered safely, each tool call shown with
 * its arguments and, inside the same card, the result that answered it (matched by toolCallId);
 * long tool output folded with its size; the system prompt collapsed; every message addressable.
 */
import type { Message, Session, UsageRow } from "@sessiondb/core";

import { bytes, contentText, count } from "../../format.js";
import type { CliStore } from "../../server.js";
import { highlightJsonText, highlightOutput, prettyJson } from "../highlight.js";
import { type Html, html, raw } from "../html.js";
import { compact, dollars, messageHref, pageShell, query, type Site, sessionHref, when } from "../layout.js";
import { loadMarkdown, type Markdown } from "../markdown.js";

/** Messages per transcript page (almost every session fits on one). */
const TRANSCRIPT_PAGE = 500;
/** Tool output longer than this (characters or lines) is folded behind its first lines. */
const FOLD_CHARS = 1500;
const FOLD_LINES = 20;
const PREVIEW_LINES = 6;
/** Characters of one output put in the page; the rest is one click away as plain text. */
const SHOWN_CHARS = 64 * 1024;

interface Call {
  id: string | undefined;
  name: string;
  args: string;
}

/** A tool call in the shapes agents store: OpenAI `{id, function: {name, arguments}}` or `{id, name, input}`. */
function readCall(raw: unknown): Call {
  const call = (raw ?? {}) as {
    id?: unknown;
    name?: unknown;
    input?: unknown;
    arguments?: unknown;
    function?: { name?: unknown; arguments?: unknown };
  };
  const args = call.function?.arguments ?? call.arguments ?? call.input ?? "";
  const text = typeof args === "string" ? args : JSON.stringify(args, null, 2);
  return {
    id: typeof call.id === "string" ? call.id : undefined,
    name: String(call.function?.name ?? call.name ?? "tool"),
    args: prettyJson(text) ?? text,
  };
}

function isError(m: Message): boolean {
  const meta = m.metadata as { isError?: unknown; error?: unknown } | null;
  return (
    m.finishReason === "error" ||
    meta?.isError === true ||
    (meta?.error !== undefined && meta.error !== null && meta.error !== false)
  );
}

function head(m: Message, label: string, extra: Html | string = ""): Html {
  return html`<div class="head"><span class="role ${m.role}">${label}</span>${extra}${isError(m) ? html`<span class="tag err">error</span>` : ""}
<div class="right">${m.tokenCount !== null ? html`<span class="size">${count(m.tokenCount)} tokens</span>` : ""}${when(m.timestamp, "clock")}<a class="anchor" href="#m-${m.id}" title="link to this message">#${m.id}</a></div></div>`;
}

/** Tool output: JSON re-indented and highlighted, other text with error lines marked; long output folded. */
function output(m: Message): Html {
  const text = contentText(m.content);
  if (text === "") return html`<div class="muted">(empty output)</div>`;
  const pretty = prettyJson(text);
  const shownText = (pretty ?? text).slice(0, SHOWN_CHARS);
  const render = (t: string) => raw(pretty !== undefined ? highlightJsonText(t) : highlightOutput(t));
  const lines = text.split("\n").length;
  const size = html`<span class="size">${bytes(new TextEncoder().encode(text).length)} · ${count(lines)} lines</span>`;
  const full = html`<pre class="wrap"><code>${render(shownText)}</code></pre>${
    text.length > SHOWN_CHARS || (pretty ?? text).length > SHOWN_CHARS
      ? html`<div class="muted">Shown: the first ${count(SHOWN_CHARS)} characters. <a href="${messageHref(m.sessionId, m.id)}/raw">Whole output as text</a>.</div>`
      : ""
  }`;
  if (text.length <= FOLD_CHARS && lines <= FOLD_LINES) return html`${full}`;
  const preview = (pretty ?? text).split("\n").slice(0, PREVIEW_LINES).join("\n");
  return html`<div class="fold"><pre class="preview wrap"><code>${render(preview)}</code></pre>
<details><summary>Show all output · ${size}</summary>${full}</details></div>`;
}

function result(m: Message): Html {
  return html`<div class="result" id="m-${m.id}">${head(m, "result", m.toolName ? html`<span class="mono">${m.toolName}</span>` : "")}${output(m)}</div>`;
}

function callCard(call: Call, answer: Message | undefined): Html {
  return html`<div class="call"${call.id ? html` id="call-${call.id}"` : ""}><div class="name"><b>${call.name}</b>${
    call.id ? html`<span class="mono muted">${call.id}</span>` : ""
  }</div>
<pre class="wrap"><code>${raw(highlightJsonText(call.args))}</code></pre>
${answer ? result(answer) : html`<div class="result missing">No result recorded for this call${call.id ? "" : " (it has no id to match)"}.</div>`}</div>`;
}

function prose(markdown: Markdown, text: string): Html {
  return html`<div class="body">${raw(markdown(text))}</div>`;
}

function message(
  markdown: Markdown,
  m: Message,
  results: Map<string, Message>,
  paired: Set<number>,
): Html | "" {
  if (paired.has(m.id)) return "";
  const text = contentText(m.content);
  if (m.role === "system" || m.role === "developer") {
    return html`<article class="msg ${m.role}" id="m-${m.id}"><details class="system-prompt"><summary>${
      m.role === "system" ? "System prompt" : "Developer instructions"
    } · ${count(text.length)} characters</summary>${head(m, m.role)}${prose(markdown, text)}</details></article>`;
  }
  if (m.role === "tool") {
    return html`<article class="msg tool" id="m-${m.id}">${head(m, "tool", html`<span class="mono">${m.toolName ?? ""}</span>${m.toolCallId ? html`<span class="mono muted">${m.toolCallId}</span>` : ""}`)}${output(m)}</article>`;
  }
  const calls = (m.toolCalls ?? []).map(readCall);
  const finish =
    m.finishReason && !["stop", "tool_calls", "end_turn"].includes(m.finishReason)
      ? html`<span class="tag">${m.finishReason}</span>`
      : "";
  return html`<article class="msg ${m.role}" id="m-${m.id}">${head(m, m.role, finish)}
${text ? prose(markdown, text) : ""}
${m.reasoning ? html`<details><summary>Reasoning · ${count(m.reasoning.length)} characters</summary>${prose(markdown, m.reasoning)}</details>` : ""}
${calls.map((call) => callCard(call, call.id ? results.get(call.id) : undefined))}</article>`;
}

/** Results on this page by the call they answer; the first result for an id wins. */
function pairResults(messages: Message[]): { results: Map<string, Message>; paired: Set<number> } {
  const results = new Map<string, Message>();
  for (const m of messages)
    if (m.role === "tool" && m.toolCallId && !results.has(m.toolCallId)) results.set(m.toolCallId, m);
  const paired = new Set<number>();
  const answered = new Map<string, Message>();
  for (const m of messages) {
    for (const raw of m.toolCalls ?? []) {
      const id = readCall(raw).id;
      const answer = id ? results.get(id) : undefined;
      if (id && answer && !answered.has(id)) {
        answered.set(id, answer);
        paired.add(answer.id);
      }
    }
  }
  return { results: answered, paired };
}

function usageTable(rows: UsageRow[]): Html | "" {
  if (!rows.length) return "";
  return html`<details><summary>Usage by model · ${rows.length} row${rows.length === 1 ? "" : "s"}</summary><table class="nums">
<thead><tr><th>Model</th><th>Provider</th><th>Task</th><th class="num">Calls</th><th class="num">Input</th><th class="num">Output</th><th class="num">Cache</th><th class="num">Cost</th></tr></thead>
<tbody>${rows.map(
    (r) =>
      html`<tr><td class="mono">${r.model}</td><td>${r.provider || "–"}</td><td>${r.task || "–"}</td><td class="num">${count(r.callCount)}</td><td class="num">${count(r.inputTokens)}</td><td class="num">${count(r.outputTokens)}</td><td class="num">${count(r.cacheReadTokens + r.cacheWriteTokens)}</td><td class="num">${dollars(r.costUsd)}</td></tr>`,
  )}</tbody></table></details>`;
}

function facts(s: Session): Html {
  const tokens = s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheWriteTokens + s.reasoningTokens;
  return html`<div class="facts">
<span><span class="tag">${s.source}</span></span>
${s.model ? html`<span class="mono">${s.model}</span>` : ""}
<span><b>${count(s.messageCount)}</b> messages</span>
<span><b>${count(s.toolCallCount)}</b> tool calls</span>
<span><b>${compact(tokens)}</b> tokens (${compact(s.inputTokens)} in · ${compact(s.outputTokens)} out${s.cacheReadTokens + s.cacheWriteTokens ? ` · ${compact(s.cacheReadTokens + s.cacheWriteTokens)} cache` : ""})</span>
<span><b>${dollars(s.estimatedCostUsd)}</b></span>
<span>started ${when(s.startedAt)}</span>
${s.lastActivityAt ? html`<span>last active ${when(s.lastActivityAt)}</span>` : ""}
${s.endedAt ? html`<span>ended ${when(s.endedAt)}${s.endReason ? ` (${s.endReason})` : ""}</span>` : ""}
${s.cwd ? html`<span class="mono">${s.cwd}</span>` : ""}
${s.archived ? html`<span class="tag">archived</span>` : ""}
</div>`;
}

/** The forms of a server started with --allow-write: rename, archive/unarchive, delete (typed
 * confirmation). Each carries the server's CSRF token; they work without JavaScript. */
function manage(s: Session, csrf: string): Html {
  const action = (what: string) => `${sessionHref(s.id)}/${what}`;
  const token = html`<input type="hidden" name="csrf" value="${csrf}">`;
  return html`<details class="manage"><summary>Manage this session</summary>
<form method="post" action="${action("rename")}">${token}<label>Title <input name="title" value="${s.title ?? ""}" placeholder="Untitled session"></label><button>Rename</button></form>
<form method="post" action="${action("archive")}">${token}<input type="hidden" name="archived" value="${s.archived ? "0" : "1"}"><button>${s.archived ? "Unarchive" : "Archive"}</button></form>
<form method="post" action="${action("delete")}">${token}<label>Type the id <span class="mono">${s.id}</span> to delete the session and its messages for good <input name="confirm" autocomplete="off"></label><button class="danger">Delete</button></form>
</details>`;
}

/** Messages rendered per streamed part. */
const STREAM_BATCH = 50;

/**
 * A transcript page in parts, sent as they are ready: the header goes out before any message is
 * read, then the messages in batches (a long session starts drawing at once).
 */
export async function* transcriptParts(
  store: CliStore,
  session: Session,
  afterId: number | undefined,
  site: Site,
  /** The CSRF token when the server allows writes (the page then shows the manage forms). */
  csrf?: string,
): AsyncGenerator<string> {
  const title = session.title ?? "Untitled session";
  const [before, after] = pageShell({ title, section: "sessions", site });
  const usage = await store.getUsage(session.id);
  yield before +
    html`<div class="sub"><a href="/sessions">Sessions</a> / <span class="mono">${session.id}</span></div>
<h1>${title}</h1>
${facts(session)}
${csrf !== undefined ? manage(session, csrf) : ""}
<div class="sub">${session.parentSessionId ? html`Child of <a href="${sessionHref(session.parentSessionId)}">${session.parentSessionId}</a> · ` : ""}<a href="/sessions${query({ parent: session.id })}">Child sessions</a></div>
${usageTable(usage)}
${afterId !== undefined ? html`<div class="pager"><a href="${sessionHref(session.id)}">← From the start</a><span>messages after #${afterId}</span></div>` : ""}
<section class="thread" id="thread">`.toString();
  const rows = await store.getMessages(session.id, {
    limit: TRANSCRIPT_PAGE + 1,
    ...(afterId !== undefined ? { afterId } : {}),
  });
  const messages = rows.slice(0, TRANSCRIPT_PAGE);
  const { results, paired } = pairResults(messages);
  const markdown = await loadMarkdown();
  for (let i = 0; i < messages.length; i += STREAM_BATCH)
    yield html`${messages.slice(i, i + STREAM_BATCH).map((m) => message(markdown, m, results, paired))}`.toString();
  const more = rows.length > TRANSCRIPT_PAGE;
  yield html`</section>
${messages.length === 0 ? html`<div class="panel empty">No messages${afterId !== undefined ? " after this point" : ""}.</div>` : ""}
${more ? html`<div class="pager"><a rel="next" href="${sessionHref(session.id)}${query({ after: messages.at(-1)?.id })}">Next ${count(TRANSCRIPT_PAGE)} messages →</a></div>` : ""}`.toString() +
    after;
}

/** The `after` value of the transcript page holding message `id`, or null when the session has no such message. */
export async function pageOf(
  store: CliStore,
  session: Session,
  id: number,
): Promise<number | undefined | null> {
  if (session.messageCount <= TRANSCRIPT_PAGE) {
    const [hit] = await store.getMessages(session.id, { afterId: id - 1, limit: 1 });
    return hit?.id === id ? undefined : null;
  }
  let after: number | undefined;
  for (;;) {
    const chunk = await store.getMessages(session.id, {
      limit: TRANSCRIPT_PAGE,
      ...(after !== undefined ? { afterId: after } : {}),
    });
    if (chunk.some((m) => m.id === id)) return after;
    const last = chunk.at(-1);
    if (!last || last.id > id) return null;
    after = last.id;
  }
}

/** One message's content as plain text (the unfolded whole of a long tool output). */
export async function rawContent(
  store: CliStore,
  sessionId: string,
  id: number,
): Promise<string | undefined> {
  const [hit] = await store.getMessages(sessionId, { afterId: id - 1, limit: 1 });
  return hit?.id === id ? contentText(hit.content) : undefined;
}
