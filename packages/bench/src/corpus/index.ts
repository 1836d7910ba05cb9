/**
 * Deterministic, seeded corpus of agent transcripts (spec §10). Same seed and size → the same
 * sessions and messages, byte for byte, on every runtime. Shape:
 *
 * - sessions of log-normal length (median ~24 messages, a few hundred at the tail);
 * - a system prompt first, then turns: a user request, agent steps (an assistant message with
 *   JSON tool calls, one tool result per call), and a final assistant answer — roughly 2–3 %
 *   system, 15 % user, 44 % assistant, 39 % tool;
 * - tool output of log-normal length (median 1200 characters, σ 1.7, capped at 400 000): about
 *   one in ten above the 8192-character FTS prefix, a few in a thousand above 100 000;
 * - code, logs, stack traces, JSON, grep hits, listings; ~5 % of sessions in Chinese/Japanese,
 *   other scripts and emoji sprinkled in;
 * - unique tokens (`tk` + 14 base-36 characters) in ~6 % of messages, reported with where they sit,
 *   so tests can look them up and expect exactly one hit.
 */
import type { CreateSessionInput, MessageInput } from "@sessiondb/core";
import { Prng } from "./prng.js";
import * as text from "./text.js";

/** Tool rows index only their first this many characters (mirrors core's on-disk constant). */
export const TOOL_PREFIX_CHARS = 8192;

/** What to generate. */
export interface CorpusOptions {
  /** Any 32-bit integer; the whole corpus is a function of it. */
  seed: number;
  /** Total number of messages across all sessions. */
  messages: number;
}

/** A unique searchable token placed in one message. */
export interface CorpusToken {
  /** The token: `tk` + 14 base-36 characters, one unicode61 token, never a substring of another. */
  token: string;
  /** Index of the message within its session's `messages`. */
  index: number;
  /** Role of that message. */
  role: MessageInput["role"];
  /** False when the token sits past the tool-content prefix (only a tool-role search finds it). */
  indexedByFts: boolean;
}

/** One generated session with its messages. */
export interface CorpusSession {
  /** Session input; `id` is always set (deterministic). */
  session: CreateSessionInput & { id: string };
  /** Messages in order. */
  messages: MessageInput[];
  /** Unique tokens placed in this session's messages. */
  tokens: CorpusToken[];
}

const BASE_TIME = 1_700_000_000;
const MODELS = ["claude-sonnet-4", "gpt-4.1", "gemini-2.5-pro", "llama-3.3-70b", "qwen3-coder"];

/** The corpus as a lazy sequence of sessions (memory stays flat even at 1M messages). */
export function* generateCorpus(options: CorpusOptions): Generator<CorpusSession> {
  const total = Math.max(0, Math.floor(options.messages));
  const root = new Prng(options.seed);
  const seedTag = (options.seed >>> 0).toString(36).padStart(7, "0");
  const state = { tokens: 0, seedTag };
  let produced = 0;
  for (let index = 0; produced < total; index++) {
    const rng = root.fork(); // one stream per session: a session's content never shifts the next
    const length = Math.min(total - produced, Math.max(2, Math.min(1500, Math.round(rng.logNormal(24, 1)))));
    const item = makeSession(rng, index, length, state);
    produced += item.messages.length;
    yield item;
  }
}

function makeSession(
  rng: Prng,
  index: number,
  length: number,
  state: { tokens: number; seedTag: string },
): CorpusSession {
  const cjk = rng.chance(0.05);
  const id = `s${state.seedTag}-${String(index).padStart(7, "0")}`;
  let t = BASE_TIME + index * 617 + rng.int(0, 600);
  const session: CorpusSession["session"] = {
    id,
    source: rng.weighted({ cli: 50, gateway: 30, cron: 10, dashboard: 6, api: 4 }),
    model: rng.pick(MODELS),
    title: cjk ? text.nonLatin(rng, 12, true) : text.title(rng),
    cwd: `/home/dev/project-${rng.int(1, 40)}`,
    startedAt: t,
    metadata: { corpus: true, index },
  };
  if (index > 0 && rng.chance(0.04))
    session.parentSessionId = `s${state.seedTag}-${String(rng.int(0, index - 1)).padStart(7, "0")}`;
  const messages: MessageInput[] = [];
  const push = (message: MessageInput) => {
    t += rng.int(1, 40) + rng.int(0, 999) / 1000;
    messages.push({ ...message, timestamp: t });
  };
  if (rng.chance(0.9)) push({ role: "system", content: systemPrompt(rng) });
  let call = 0;
  while (messages.length < length) {
    push(userMessage(rng, cjk));
    let steps = 0;
    while (messages.length < length && steps < 25 && rng.chance(0.7)) {
      steps++;
      const calls = Array.from({ length: Number(rng.weighted({ 1: 75, 2: 18, 3: 7 })) }, () =>
        toolCall(rng, `call_${id.slice(-7)}_${call++}`),
      );
      push({
        role: "assistant",
        content: rng.chance(0.5) ? text.prose(rng, rng.int(20, 200)) : null,
        toolCalls: calls.map((c) => c.json),
        finishReason: "tool_calls",
        tokenCount: rng.int(20, 400),
      });
      for (const c of calls) {
        if (messages.length >= length) break;
        push({ role: "tool", toolName: c.name, toolCallId: c.id, content: toolOutput(rng, c.name) });
      }
    }
    if (messages.length < length) push(finalAnswer(rng, cjk));
  }
  messages.length = length;
  return { session, messages, tokens: sprinkleTokens(rng, messages, state) };
}

function systemPrompt(rng: Prng): string {
  return `You are a coding agent working in a repository. ${text.prose(rng, rng.int(1500, 6000))}`;
}

function userMessage(rng: Prng, cjk: boolean): MessageInput {
  const body = cjk
    ? `${text.nonLatin(rng, rng.int(10, 120), true)} ${text.pickFile(rng)}`
    : text.userRequest(rng);
  const extra = rng.chance(0.03) ? ` ${text.nonLatin(rng, 30, false)}` : "";
  // A few clients send OpenAI-style content parts instead of a string.
  if (rng.chance(0.02)) return { role: "user", content: [{ type: "text", text: body + extra }] };
  return { role: "user", content: body + extra };
}

function finalAnswer(rng: Prng, cjk: boolean): MessageInput {
  let content = cjk ? text.nonLatin(rng, rng.int(40, 600), true) : text.prose(rng, rng.int(100, 2000));
  if (rng.chance(0.3)) content += `\n\n\`\`\`ts\n${text.code(rng, rng.int(200, 2500))}\n\`\`\``;
  const message: MessageInput = {
    role: "assistant",
    content,
    finishReason: "stop",
    tokenCount: rng.int(50, 2000),
  };
  if (rng.chance(0.1)) message.reasoning = text.prose(rng, rng.int(200, 1500));
  return message;
}

interface Call {
  id: string;
  name: string;
  json: { id: string; type: string; function: { name: string; arguments: string } };
}

function toolCall(rng: Prng, id: string): Call {
  const name = rng.pick(text.TOOL_NAMES);
  const args =
    name === "bash" || name === "run_tests"
      ? {
          command: rng.pick([
            "npm test",
            "cargo build",
            "go test ./...",
            "pytest -x",
            "ls -la",
            "git status",
          ]),
        }
      : name === "grep"
        ? { pattern: rng.pick(["TODO", "connection refused", "fixme", "import"]), path: "." }
        : name === "http_get"
          ? {
              url: `https://api.example.com/v1/${rng.pick(["items", "users", "builds"])}?page=${rng.int(1, 9)}`,
            }
          : { path: text.pickFile(rng) };
  return { id, name, json: { id, type: "function", function: { name, arguments: JSON.stringify(args) } } };
}

/** Heavy-tailed tool output in the shape its tool produces. */
function toolOutput(rng: Prng, name: string): string {
  if (name === "write_file" || name === "edit_file")
    return `Wrote ${rng.int(10, 90000)} bytes to ${text.pickFile(rng)}`;
  const chars = Math.round(Math.max(40, Math.min(400_000, rng.logNormal(1200, 1.7))));
  const body =
    name === "read_file"
      ? text.code(rng, chars)
      : name === "grep"
        ? text.grepHits(rng, chars)
        : name === "list_dir"
          ? text.listing(rng, chars)
          : name === "http_get"
            ? text.jsonDoc(rng, chars)
            : rng.chance(0.25)
              ? `${text.logs(rng, Math.max(0, chars - 600))}\n${text.stackTrace(rng, 600)}`
              : text.logs(rng, chars);
  // Makers overshoot by up to a line; cut to the drawn length (tools truncate output too).
  return safeSlice(body, chars);
}

/** `s.slice(0, end)` without splitting a surrogate pair. */
function safeSlice(s: string, end: number): string {
  if (end >= s.length) return s;
  const c = s.charCodeAt(end - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? end - 1 : end);
}

/** Put unique tokens into ~6 % of messages that have text; tool tokens land anywhere in the output. */
function sprinkleTokens(
  rng: Prng,
  messages: MessageInput[],
  state: { tokens: number; seedTag: string },
): CorpusToken[] {
  const tokens: CorpusToken[] = [];
  messages.forEach((message, index) => {
    if (!rng.chance(0.06) || message.role === "system") return;
    const token = `tk${state.seedTag}${(state.tokens++).toString(36).padStart(7, "0")}`;
    const content = message.content;
    if (typeof content === "string" && content.length > 0) {
      const at = breakAfter(content, rng.int(0, content.length - 1));
      const next = `${content.slice(0, at)} ${token} ${content.slice(at)}`;
      message.content = next;
      const end = codePoints(next, at + 1 + token.length);
      tokens.push({
        token,
        index,
        role: message.role,
        indexedByFts: message.role !== "tool" || end <= TOOL_PREFIX_CHARS,
      });
    } else if (Array.isArray(content)) {
      const part = content[0] as { type: string; text: string };
      content[0] = { type: part.type, text: `${part.text} ${token}` };
      tokens.push({ token, index, role: message.role, indexedByFts: true });
    } else {
      message.content = token; // tool-call-only assistant turn: the token is its whole text
      tokens.push({ token, index, role: message.role, indexedByFts: true });
    }
  });
  return tokens;
}

/** The first whitespace position at or after `from` (or the end), so a token never splits a word. */
function breakAfter(content: string, from: number): number {
  const match = /\s/.exec(content.slice(from));
  return match ? from + match.index : content.length;
}

/** Code points in `s.slice(0, end)` (SQLite's substr counts characters, JS counts UTF-16 units). */
export function codePoints(s: string, end = s.length): number {
  let n = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    // A low surrogate right after a high one is the second half of one character.
    const pairTail = c >= 0xdc00 && c <= 0xdfff && i > 0 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800;
    if (!pairTail) n++;
  }
  return n;
}

/** Text length of a message's content in characters (structured content counts its JSON). */
export function contentChars(message: MessageInput): number {
  const c = message.content;
  if (c === null || c === undefined) return 0;
  return typeof c === "string" ? c.length : JSON.stringify(c).length;
}

/** The part of the Store API `buildStore` needs (any adapter's Store satisfies it). */
export interface CorpusTarget {
  createSession(input: CreateSessionInput): unknown;
  appendMessages(sessionId: string, messages: MessageInput[]): number[];
  /** Run `fn` as one write transaction (`Store.transaction`); used with `perTransaction`. */
  transaction?<T>(fn: () => T): T;
}

/** A token with the stored message id it landed in. */
export interface StoredToken extends CorpusToken {
  sessionId: string;
  messageId: number;
}

/** What `buildStore` wrote. */
export interface CorpusSummary {
  sessions: number;
  messages: number;
  byRole: Record<string, number>;
  /** Sum of content lengths (UTF-16 units). */
  contentChars: number;
  /** Tool messages longer than the FTS prefix. */
  toolAbovePrefix: number;
  tokens: StoredToken[];
}

/** How `buildStore` writes. */
export interface BuildOptions extends CorpusOptions {
  /** Messages per `appendMessages` call (default 64). */
  batch?: number;
  /** Group whole sessions into one `store.transaction` of at least this many messages (the
   * target must have `transaction`). Default: none, every call commits on its own. Grouping
   * changes nothing stored — the same calls in the same order — only how often it commits. */
  perTransaction?: number;
  onProgress?: (messages: number) => void;
}

/** Fill `store` with the corpus, `batch` messages per `appendMessages` call. */
export function buildStore(store: CorpusTarget, options: BuildOptions): CorpusSummary {
  const batch = Math.max(1, options.batch ?? 64);
  const group = options.perTransaction;
  const transaction = store.transaction?.bind(store);
  if (group !== undefined && !transaction)
    throw new Error("buildStore: perTransaction needs a target with transaction()");
  const summary: CorpusSummary = {
    sessions: 0,
    messages: 0,
    byRole: {},
    contentChars: 0,
    toolAbovePrefix: 0,
    tokens: [],
  };
  /** Write `items` (whole sessions) and return each one's message ids. Safe to run again: a
   * transaction that retries after a busy lock runs it from the start on a rolled-back store. */
  const write = (items: CorpusSession[]): number[][] =>
    items.map((item) => {
      store.createSession(item.session);
      const ids: number[] = [];
      for (let i = 0; i < item.messages.length; i += batch)
        ids.push(...store.appendMessages(item.session.id, item.messages.slice(i, i + batch)));
      return ids;
    });
  const record = (item: CorpusSession, ids: number[]) => {
    summary.sessions++;
    for (const message of item.messages) {
      summary.byRole[message.role] = (summary.byRole[message.role] ?? 0) + 1;
      const chars = contentChars(message);
      summary.contentChars += chars;
      if (message.role === "tool" && chars > TOOL_PREFIX_CHARS) summary.toolAbovePrefix++;
    }
    for (const token of item.tokens) {
      summary.tokens.push({ ...token, sessionId: item.session.id, messageId: ids[token.index] as number });
    }
    summary.messages += item.messages.length;
    options.onProgress?.(summary.messages);
  };
  let pending: CorpusSession[] = [];
  let pendingMessages = 0;
  const flush = () => {
    if (pending.length === 0) return;
    const items = pending;
    const ids = group !== undefined && transaction ? transaction(() => write(items)) : write(items);
    for (const [i, item] of items.entries()) record(item, ids[i] as number[]);
    pending = [];
    pendingMessages = 0;
  };
  for (const item of generateCorpus(options)) {
    pending.push(item);
    pendingMessages += item.messages.length;
    if (group === undefined || pendingMessages >= group) flush();
  }
  flush();
  return summary;
}
