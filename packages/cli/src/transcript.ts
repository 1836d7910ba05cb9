/**
 * The formats `export` writes, each as pieces written in order: the document's start, then for
 * every session its header, its messages and its end, then the document's end. One document may
 * hold many sessions; a file per session is the same pieces for one session.
 *
 * JSONL is the importable format. Markdown and HTML are for reading: every message in full, no
 * markdown rendered into HTML (content is shown as text, escaped, so nothing in a transcript can
 * run or restyle the page). Both show control characters visibly (`\u001b`): a file for reading
 * is often read with `cat`, and a stored escape sequence must not drive the terminal then.
 */
import type { Message, Session } from "@sessiondb/core";
import { contentText, count, time, usd } from "./format.js";
import { messageToRecord, sessionToRecord } from "./jsonl.js";
import { tokensOf } from "./serve/data.js";
import { html, raw } from "./serve/html.js";
import { toolCallText } from "./tool-call.js";
import { visible } from "./visible.js";

export interface Format {
  extension: string;
  start(title: string): string;
  session(session: Session): string;
  message(message: Message): string;
  sessionEnd(): string;
  end(): string;
}

export const FORMATS = ["jsonl", "markdown", "html"] as const;
export type FormatName = (typeof FORMATS)[number];

const jsonl: Format = {
  extension: "jsonl",
  start: () => "",
  session: (s) => `${JSON.stringify(sessionToRecord(s))}\n`,
  message: (m) => `${JSON.stringify(messageToRecord(m))}\n`,
  sessionEnd: () => "",
  end: () => "",
};

function facts(s: Session): string[] {
  return [
    `id ${s.id}`,
    `source ${s.source}`,
    ...(s.model ? [`model ${s.model}`] : []),
    `started ${time(s.startedAt)}`,
    ...(s.endedAt ? [`ended ${time(s.endedAt)} (${s.endReason ?? "no reason"})`] : []),
    `${count(s.messageCount)} messages`,
    `${count(tokensOf(s))} tokens`,
    `cost ${usd(s.estimatedCostUsd)}`,
    ...(s.parentSessionId ? [`parent ${s.parentSessionId}`] : []),
    ...(s.archived ? ["archived"] : []),
  ];
}

/** A fenced block whose fence is longer than any run of backticks inside it. */
function fenced(text: string, info = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${info}\n${text}\n${fence}`;
}

const markdown: Format = {
  extension: "md",
  start: () => "",
  session: (s) =>
    `# ${(s.title ?? s.id).replace(/\s+/g, " ")}\n\n${facts(s)
      .map((f) => `- ${f}`)
      .join("\n")}\n`,
  message: (m) => {
    const who = `## ${m.role}${m.toolName ? ` (${m.toolName})` : ""} · #${m.id} · ${time(m.timestamp)}`;
    const body = contentText(m.content);
    // The user's and the assistant's words are markdown already; prompts and tool output are not.
    const prose = m.role === "user" || m.role === "assistant";
    const parts = [who];
    if (m.reasoning) parts.push(`> reasoning\n\n${fenced(m.reasoning, "text")}`);
    if (body) parts.push(prose ? body : fenced(body, "text"));
    if (m.toolCalls?.length) parts.push(fenced(m.toolCalls.map(toolCallText).join("\n"), "text"));
    return `\n${parts.join("\n\n")}\n`;
  },
  sessionEnd: () => "\n",
  end: () => "",
};

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
section{margin-bottom:3rem}h1{font-size:1.4rem;margin-bottom:.2rem}.facts{color:#57606a;font-size:.85rem}
article{border-top:1px solid #d0d7de;padding:.5rem 0}.who{font-weight:600}.who span{font-weight:400;color:#57606a;font-size:.85rem}
pre{white-space:pre-wrap;word-break:break-word;margin:.3rem 0;font:13px/1.45 ui-monospace,monospace}
.tool pre,.system pre,.calls{background:#f6f8fa;padding:.4rem .6rem;border-radius:4px}`;

const htmlFormat: Format = {
  extension: "html",
  start: (title) =>
    html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${title}</title><style>${raw(STYLE)}</style></head><body>
`.toString(),
  session: (s) =>
    html`<section id="${s.id}"><h1>${s.title ?? s.id}</h1><div class="facts">${facts(s).join(" · ")}</div>
`.toString(),
  message: (m) =>
    html`<article class="${m.role}" id="m-${m.id}"><div class="who">${m.role}${m.toolName ? ` (${m.toolName})` : ""} <span>#${m.id} · ${time(m.timestamp)}</span></div>${
      m.reasoning ? html`<details><summary>reasoning</summary><pre>${m.reasoning}</pre></details>` : ""
    }${contentText(m.content) ? html`<pre>${contentText(m.content)}</pre>` : ""}${
      m.toolCalls?.length ? html`<pre class="calls">${m.toolCalls.map(toolCallText).join("\n")}</pre>` : ""
    }</article>
`.toString(),
  sessionEnd: () => "</section>\n",
  end: () => "</body></html>\n",
};

/** `format` with every piece it writes passed through `visible`. */
function forReading(format: Format): Format {
  return {
    extension: format.extension,
    start: (title) => visible(format.start(title)),
    session: (s) => visible(format.session(s)),
    message: (m) => visible(format.message(m)),
    sessionEnd: () => visible(format.sessionEnd()),
    end: () => visible(format.end()),
  };
}

export const FORMAT: Record<FormatName, Format> = {
  jsonl,
  markdown: forReading(markdown),
  html: forReading(htmlFormat),
};
