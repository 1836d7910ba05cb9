/**
 * One Claude Code transcript file's lines (`~/.claude/projects/<project>/<session>.jsonl`) as
 * sessiondb rows, in order. Each line is one row, except a user line of tool results, which is
 * one `tool` row per result:
 * - `assistant`: its text, its thinking as `reasoning`, its `tool_use` blocks as `toolCalls`,
 *   the response's usage once (usage.ts), `stop_reason` as the finish reason.
 * - `user`: its text; each `tool_result` block a `tool` row with the call's id and the tool's
 *   name (from the `tool_use` seen earlier in the file). A meta line (`isMeta`: the CLI's own
 *   caveats and command echoes) is kept inactive.
 * - `summary`, `custom-title`, `ai-title`: inactive rows that give the session its title (a
 *   title the user set wins over generated ones).
 * - `system` and every other type (file-history-snapshot, queue-operation, progress,
 *   attachment…): inactive rows; a type not listed here is also counted as unknown.
 * The first row of a line holds the whole line as its original (`{ format: "claude-code" }`)
 * and the line's `uuid` as its externalId (`line:<n>` for a line without one); the further
 * result rows of the line are `<uuid>#<i>` with no original, so a line is given back once.
 */
import type { Json, MessageInput } from "@sessiondb/core";
import type { ItemMapper, MappedItem, SessionFacts } from "../mapped.js";
import { BadMapperState, stateObject, statePairs, stateStrings } from "../mapper-state.js";
import { readBlocks } from "./blocks.js";
import { ResponseUsage } from "./usage.js";

/** The name of the format and of its originals. */
export const CLAUDE_CODE_FORMAT = "claude-code";

type Obj = { [key: string]: unknown };

/** Line types that are no conversation message but known: kept, not counted as unknown. */
const KNOWN = new Set([
  "system",
  "summary",
  "custom-title",
  "ai-title",
  "tag",
  "file-history-snapshot",
  "queue-operation",
  "progress",
  "attachment",
  "last-prompt",
  "agent-name",
]);

/** Which session a file's lines go to. */
export interface LineSession {
  /** The session's id (default: the first line's `sessionId`). */
  id?: string;
  /** The session whose subagent this file is. */
  parentSessionId?: string;
}

/** A mapper for one transcript file (or one SessionStore key). */
export class ClaudeCodeLines implements ItemMapper<unknown> {
  readonly #usage = new ResponseUsage();
  /** Tool names by tool_use id: a result names the tool its call used. */
  #tools = new Map<string, string>();
  readonly #target: LineSession;
  /** The session facts given already (each is said once, by the first line that has it). */
  #seen = new Set<string>();
  #customTitle = false;

  constructor(target: LineSession = {}) {
    this.#target = target;
  }

  /** Every map this mapper keeps: a later line may repeat any response's usage or answer any
   * tool call, so none is pruned (a few dozen bytes per response and per call). */
  save(): Json {
    return {
      usage: this.#usage.save(),
      tools: [...this.#tools],
      seen: [...this.#seen],
      customTitle: this.#customTitle,
    };
  }

  restore(state: Json): void {
    const s = stateObject(state, "Claude Code state");
    const tools = new Map(statePairs(s.tools, "tool names"));
    const seen = new Set(stateStrings(s.seen, "session facts"));
    if (typeof s.customTitle !== "boolean") throw new BadMapperState("customTitle");
    this.#usage.restore(s.usage);
    this.#tools = tools;
    this.#seen = seen;
    this.#customTitle = s.customTitle;
  }

  map(value: unknown, position: number): MappedItem {
    const line = (value !== null && typeof value === "object" && !Array.isArray(value) ? value : {}) as Obj;
    const externalId = typeof line.uuid === "string" && line.uuid !== "" ? line.uuid : `line:${position}`;
    const base: MessageInput = {
      role: "system",
      externalId,
      original: { format: CLAUDE_CODE_FORMAT, value: value as Json },
    };
    const at = typeof line.timestamp === "string" ? Date.parse(line.timestamp) / 1000 : Number.NaN;
    if (Number.isFinite(at) && at >= 0) base.timestamp = at;
    const message = (line.message !== null && typeof line.message === "object" ? line.message : {}) as Obj;
    const mapped = this.#rows(line, message, base);
    const facts = this.#facts(line, message, base.timestamp);
    if (facts !== undefined) mapped.session = { ...facts, ...mapped.session };
    return mapped;
  }

  #rows(line: Obj, message: Obj, base: MessageInput): MappedItem {
    const type = typeof line.type === "string" ? line.type : "(none)";
    if ((type === "user" || type === "assistant") && line.isMeta !== true) {
      const blocks = readBlocks(message.content);
      for (const call of blocks.calls) this.#tools.set(call.id, call.name);
      if (type === "assistant") {
        const row: MessageInput = { ...base, role: "assistant", content: blocks.text };
        if (blocks.reasoning !== null) row.reasoning = blocks.reasoning;
        if (blocks.toolCalls.length > 0) row.toolCalls = blocks.toolCalls;
        if (typeof message.stop_reason === "string") row.finishReason = message.stop_reason;
        const usage = this.#usage.next(line, message);
        if (usage !== undefined) row.usage = usage;
        return { messages: [row] };
      }
      const rows: MessageInput[] = blocks.results.map((r) => {
        const row: MessageInput = { role: "tool", content: r.text, toolCallId: r.toolUseId };
        const name = r.toolUseId === null ? undefined : this.#tools.get(r.toolUseId);
        if (name !== undefined) row.toolName = name;
        if (r.isError) row.metadata = { isError: true };
        return row;
      });
      if (blocks.text !== null || rows.length === 0) rows.push({ role: "user", content: blocks.text });
      return {
        messages: rows.map((row, i) => {
          if (i === 0) return { ...base, ...row };
          const more: MessageInput = { ...row, externalId: `${base.externalId}#${i}` };
          if (base.timestamp !== undefined) more.timestamp = base.timestamp;
          return more;
        }),
      };
    }
    const row: MessageInput = { ...base, content: keptText(type, line), active: false };
    return KNOWN.has(type) || type === "user" || type === "assistant"
      ? { messages: [row] }
      : { messages: [row], unknown: type };
  }

  /** What the line says of its session, each fact from the first line that has it: the id
   * and source, the start (the first timestamp), the cwd, the branch and CLI version, the
   * model of the first response; and a title line's title. */
  #facts(line: Obj, message: Obj, at: number | undefined): SessionFacts | undefined {
    const facts: SessionFacts = {};
    const id = this.#target.id ?? (typeof line.sessionId === "string" ? line.sessionId : undefined);
    if (!this.#seen.has("id") && id !== undefined) {
      this.#seen.add("id");
      facts.id = id;
      facts.source = CLAUDE_CODE_FORMAT;
      if (this.#target.parentSessionId !== undefined) facts.parentSessionId = this.#target.parentSessionId;
    }
    if (!this.#seen.has("startedAt") && at !== undefined) {
      this.#seen.add("startedAt");
      facts.startedAt = at;
    }
    if (!this.#seen.has("cwd") && typeof line.cwd === "string" && line.cwd !== "") {
      this.#seen.add("cwd");
      facts.cwd = line.cwd;
    }
    if (!this.#seen.has("metadata") && typeof line.version === "string") {
      this.#seen.add("metadata");
      const metadata: { [key: string]: Json } = {};
      for (const key of ["gitBranch", "version", "agentId", "entrypoint"])
        if (typeof line[key] === "string") metadata[key] = line[key] as string;
      facts.metadata = { claudeCode: metadata };
    }
    const model = message.model;
    // "<synthetic>" marks a message the CLI wrote itself (an API error): no model ran.
    if (
      !this.#seen.has("model") &&
      line.type === "assistant" &&
      typeof model === "string" &&
      !model.startsWith("<")
    ) {
      this.#seen.add("model");
      facts.model = model;
    }
    const title = this.#title(line);
    if (title !== undefined) facts.title = title;
    return Object.keys(facts).length > 0 ? facts : undefined;
  }

  #title(line: Obj): string | undefined {
    if (line.type === "custom-title" && typeof line.customTitle === "string") {
      this.#customTitle = true;
      return line.customTitle;
    }
    if (this.#customTitle) return undefined;
    if (line.type === "summary" && typeof line.summary === "string") return line.summary;
    if (line.type === "ai-title" && typeof line.aiTitle === "string") return line.aiTitle;
    return undefined;
  }
}

/** The searchable text of a kept line: a summary, a title, a system line's content. */
function keptText(type: string, line: Obj): string | null {
  const field =
    type === "summary"
      ? line.summary
      : type === "custom-title"
        ? line.customTitle
        : type === "ai-title"
          ? line.aiTitle
          : type === "system"
            ? line.content
            : undefined;
  return typeof field === "string" && field !== "" ? field : null;
}
