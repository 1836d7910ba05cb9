/**
 * A generated `~/.claude/projects` folder for the importer's bench row: a pure function of the
 * seed and the message count (the bench's own PRNG and text), laid out as Claude Code keeps it
 * (`<project>/<session>.jsonl`, some sessions with `<session>/subagents/agent-<id>.jsonl`) and
 * written as Claude Code writes it: a user prompt, then responses whose content blocks (thinking,
 * text, each tool_use) are one line each repeating the response's usage, and a user line of the
 * tool result after each call. Every line becomes one stored row, so `messages` lines are
 * `messages` rows.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Prng } from "./corpus/prng.js";
import { code, logs, pickFile, prose, TOOL_NAMES, userRequest } from "./corpus/text.js";

export interface FolderSummary {
  /** The session files, main ones and subagents', in the order written. */
  files: string[];
  /** Lines written: the rows an import stores. */
  messages: number;
}

const PROJECTS = ["-home-ada-src-widget", "-home-ada-src-api", "-srv-builds-ci", "-home-lin-notes"];
const MODELS = ["claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "claude-haiku-4-5-20251001"];
const START = Date.parse("2026-06-01T08:00:00.000Z");

const hex = (rng: Prng, n: number) => {
  let s = "";
  while (s.length < n) s += rng.nextU32().toString(16).padStart(8, "0");
  return s.slice(0, n);
};
const uuid = (rng: Prng) => {
  const h = hex(rng, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20)}`;
};

/** Writes one session's lines: what a transcript holds, turn after turn. */
class Transcript {
  #last: string | null = null;
  #at: number;
  lines: string[] = [];

  constructor(
    readonly rng: Prng,
    readonly sessionId: string,
    readonly cwd: string,
    at: number,
  ) {
    this.#at = at;
  }

  #line(fields: Record<string, unknown>): void {
    const id = uuid(this.rng);
    this.#at += this.rng.int(200, 20_000);
    const line = {
      parentUuid: this.#last,
      isSidechain: false,
      userType: "external",
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: "2.1.3",
      gitBranch: "main",
      ...fields,
      uuid: id,
      timestamp: new Date(this.#at).toISOString(),
    };
    this.#last = id;
    this.lines.push(JSON.stringify(line));
  }

  /** A tool call and its result, `output`: three lines. */
  toolRound(output: string): void {
    const id = `toolu_${hex(this.rng, 24)}`;
    const usage = { input_tokens: 5, output_tokens: 40, cache_read_input_tokens: 20_000 };
    this.#line({
      type: "assistant",
      requestId: `req_${hex(this.rng, 24)}`,
      message: {
        id: `msg_${hex(this.rng, 24)}`,
        role: "assistant",
        model: MODELS[0],
        content: [{ type: "tool_use", id, name: "Bash", input: { command: "cat build.log" } }],
        stop_reason: "tool_use",
        usage,
      },
    });
    this.#line({
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] },
    });
  }

  /** A prompt and the responses to it, about `budget` lines. */
  turn(budget: number): void {
    const rng = this.rng;
    this.#line({ type: "user", message: { role: "user", content: userRequest(rng) } });
    const model = rng.pick(MODELS);
    for (let used = 1; used < budget; ) {
      const request = `req_${hex(rng, 24)}`;
      const message = { id: `msg_${hex(rng, 24)}`, type: "message", role: "assistant", model };
      const usage = {
        input_tokens: rng.int(1, 400),
        output_tokens: rng.int(10, 2000),
        cache_creation_input_tokens: rng.int(0, 5000),
        cache_read_input_tokens: rng.int(0, 80_000),
      };
      const block = (content: unknown, stop: string | null) =>
        this.#line({
          type: "assistant",
          requestId: request,
          message: { ...message, content: [content], stop_reason: stop, usage },
        });
      if (rng.chance(0.4))
        block({ type: "thinking", thinking: prose(rng, rng.int(40, 600)), signature: "c2ln" }, null);
      const calls = used + 4 < budget ? rng.int(0, 2) : 0;
      block({ type: "text", text: prose(rng, rng.int(20, 900)) }, calls === 0 ? "end_turn" : null);
      used += 2;
      const ids: string[] = [];
      for (let c = 0; c < calls; c++) {
        const id = `toolu_${hex(rng, 24)}`;
        ids.push(id);
        const input = { command: `${rng.pick(TOOL_NAMES)} ${pickFile(rng)}` };
        block({ type: "tool_use", id, name: rng.pick(["Bash", "Read", "Grep", "Edit"]), input }, "tool_use");
      }
      for (const id of ids) {
        const output = rng.chance(0.5) ? code(rng, rng.int(100, 2500)) : logs(rng, rng.int(100, 2500));
        this.#line({
          type: "user",
          message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] },
        });
      }
      used += calls * 2;
      if (calls === 0) break;
    }
  }
}

const text = (t: Transcript) => `${t.lines.join("\n")}\n`;

/** Writes the folder under `root`: sessions of 40–600 lines until `messages` lines are written. */
export function writeClaudeCodeFolder(root: string, seed: number, messages: number): FolderSummary {
  const rng = new Prng(seed);
  const summary: FolderSummary = { files: [], messages: 0 };
  for (let s = 0; summary.messages < messages; s++) {
    const project = PROJECTS[s % PROJECTS.length] as string;
    const sessionId = uuid(rng);
    const size = Math.min(messages - summary.messages, rng.int(40, 600));
    const transcript = new Transcript(
      rng,
      sessionId,
      `/${project.slice(1).replaceAll("-", "/")}`,
      START + s * 3_600_000,
    );
    while (transcript.lines.length < size)
      transcript.turn(Math.min(size - transcript.lines.length, rng.int(3, 30)));
    const dir = join(root, project);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${sessionId}.jsonl`);
    writeFileSync(file, text(transcript));
    summary.files.push(file);
    summary.messages += transcript.lines.length;
    // One session in twenty ran a subagent: its transcript under the session's folder.
    if (rng.chance(0.05) && summary.messages < messages) {
      const sub = new Transcript(rng, sessionId, transcript.cwd, START + s * 3_600_000 + 60_000);
      sub.turn(Math.min(messages - summary.messages, rng.int(3, 30)));
      const subDir = join(dir, sessionId, "subagents");
      mkdirSync(subDir, { recursive: true });
      const subFile = join(subDir, `agent-${hex(rng, 7)}.jsonl`);
      writeFileSync(subFile, text(sub));
      summary.files.push(subFile);
      summary.messages += sub.lines.length;
    }
  }
  return summary;
}

/** Appends a turn of a few lines to the session file `file` of `sessionId`, as a live session
 * grows; the lines it wrote. */
export function appendTurn(file: string, sessionId: string, seed: number): number {
  const rng = new Prng(seed);
  const transcript = new Transcript(rng, sessionId, "/srv/app", START + 30 * 86_400_000);
  transcript.turn(rng.int(3, 12));
  appendFileSync(file, text(transcript));
  return transcript.lines.length;
}

/** One session file of about `bytes` under `root` (`<project>/<session>.jsonl`): tool results of
 * 20–80 kB (build logs and code), the shape that makes a transcript hundreds of MB. Written a
 * few MB at a time; the path. */
export function writeLongTranscript(root: string, seed: number, bytes: number): string {
  const rng = new Prng(seed);
  const sessionId = uuid(rng);
  const dir = join(root, PROJECTS[0] as string);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${sessionId}.jsonl`);
  // A few dozen outputs, used again and again: generating 200 MB of text would take longer
  // than importing it.
  const outputs = Array.from({ length: 32 }, (_, i) =>
    i % 2 === 0 ? logs(rng, rng.int(20_000, 80_000)) : code(rng, rng.int(20_000, 80_000)),
  );
  writeFileSync(file, "");
  let written = 0;
  while (written < bytes) {
    const transcript = new Transcript(rng, sessionId, "/home/ada/src/widget", START + written);
    while (transcript.lines.length < 200) transcript.toolRound(rng.pick(outputs));
    const chunk = text(transcript);
    appendFileSync(file, chunk);
    written += Buffer.byteLength(chunk);
  }
  return file;
}
