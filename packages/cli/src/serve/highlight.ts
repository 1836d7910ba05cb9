/**
 * A small syntax highlighter: strings, comments, numbers, keywords and (in JSON) keys, each a
 * `<span class="t-…">`. It escapes every character it emits, so its output is safe markup
 * whatever the input. Good enough to read code in a transcript; not a parser.
 */
import { escapeHtml } from "./html.js";

const KEYWORDS = new Set(
  (
    "abstract as async await break case catch class const continue def default del do elif else " +
    "enum export extends false fn for from func function go if impl import in interface is let " +
    "match mod new nil none null package pass private protected pub public raise return self " +
    "static struct super switch this throw true try type typeof undefined use var void while with yield"
  ).split(" "),
);

/** Languages whose line comments start with `#` rather than `//`. */
const HASH_COMMENTS = new Set([
  "py",
  "python",
  "sh",
  "bash",
  "shell",
  "zsh",
  "yaml",
  "yml",
  "toml",
  "rb",
  "ruby",
]);

const TOKEN =
  /("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)|(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|(#[^\n]*)|(\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b|\b0x[\da-f]+\b)|([A-Za-z_$][\w$]*)/gi;

function span(cls: string, text: string): string {
  return `<span class="t-${cls}">${escapeHtml(text)}</span>`;
}

/** Highlight source code of `lang` (a fence's info string; unknown languages get the generic rules). */
export function highlightCode(source: string, lang = ""): string {
  const language = lang.toLowerCase();
  if (language === "json") return highlightJsonText(source);
  const hash = HASH_COMMENTS.has(language);
  let out = "";
  let last = 0;
  for (const m of source.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    out += escapeHtml(source.slice(last, at));
    last = at + m[0].length;
    const [text, str, slashComment, hashComment, num, word] = m;
    if (str) out += span("s", text);
    else if (slashComment && !hash) out += span("c", text);
    else if (hashComment && hash) out += span("c", text);
    else if (num) out += span("n", text);
    else if (word && KEYWORDS.has(word)) out += span("k", text);
    else out += escapeHtml(text);
  }
  return out + escapeHtml(source.slice(last));
}

const JSON_TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;

/** Highlight JSON text as it is (keys, strings, numbers, literals). */
export function highlightJsonText(text: string): string {
  let out = "";
  let last = 0;
  for (const m of text.matchAll(JSON_TOKEN)) {
    const at = m.index ?? 0;
    out += escapeHtml(text.slice(last, at));
    last = at + m[0].length;
    const [whole, str, colon, num, literal] = m;
    if (str) out += span(colon ? "key" : "s", str) + escapeHtml(colon ?? "");
    else if (num) out += span("n", num);
    else if (literal) out += span("k", literal);
    else out += escapeHtml(whole);
  }
  return out + escapeHtml(text.slice(last));
}

/** Text that parses as a JSON object or array, re-indented; undefined otherwise. */
export function prettyJson(text: string): string | undefined {
  const t = text.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return undefined;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return undefined;
  }
}

const ERROR_LINE = /\b(error|exception|traceback|fatal|panic|failed|failure)\b/i;

/** Plain output (logs, listings): escaped, with lines that report an error marked. */
export function highlightOutput(text: string): string {
  return text
    .split("\n")
    .map((line) => (ERROR_LINE.test(line) ? span("err", line) : escapeHtml(line)))
    .join("\n");
}
