/**
 * One Codex rollout file's lines (`{ timestamp, type, payload }`, the `RolloutLine` of
 * codex-rs/protocol) as sessiondb rows, in order:
 * - `session_meta`: the session (id, cwd, git, originator, CLI version, model provider, the
 *   parent of a fork or of a spawned subagent); an inactive row (the instructions stay in its
 *   original, not in search: they are Codex's own prompt, the same in every session).
 * - `turn_context`: the model and cwd from then on; an inactive row.
 * - `response_item`: a Responses item, mapped by the OpenAI rules (../openai/items.ts).
 * - `event_msg`: telemetry, inactive; `token_count` carries the usage its totals add (usage.ts),
 *   `thread_name_updated` the session's title. Its `user_message` / `agent_message` repeat the
 *   `response_item` messages, so they hold no text of their own (search finds each text once).
 * - `compacted`: the summary that replaced the history, inactive, its text searchable.
 * - any other type: inactive and counted as unknown.
 * Every row's `externalId` is `line:<n>` (a rollout is only appended to, so a line keeps its
 * number) and its original is the whole line under the format name `"codex"`.
 */
import type { Json, MessageInput, UsageInput } from "@sessiondb/core";
import type { ItemMapper, MappedItem, SessionFacts } from "../mapped.js";
import { stateObject, stateOptionalString } from "../mapper-state.js";
import { type ItemPlace, OpenAIItems } from "../openai/items.js";
import { TokenTotals } from "./usage.js";

/** The name of the format and of its originals. */
export const CODEX_FORMAT = "codex";

type Obj = { [key: string]: unknown };

const UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/** A mapper for one rollout file; `relativePath` gives the session id when no meta line does. */
export class CodexLines implements ItemMapper<unknown> {
  readonly #items = new OpenAIItems();
  readonly #totals = new TokenTotals();
  readonly #fileId: string | undefined;
  /** The model of the turn in progress (turn_context), which token counts are charged to. */
  #model: string | undefined;
  #provider: string | undefined;

  constructor(relativePath: string) {
    this.#fileId = UUID.exec(relativePath)?.[1];
  }

  save(): Json {
    const state: { [key: string]: Json } = { items: this.#items.save(), totals: this.#totals.save() };
    if (this.#model !== undefined) state.model = this.#model;
    if (this.#provider !== undefined) state.provider = this.#provider;
    return state;
  }

  restore(state: Json): void {
    const s = stateObject(state, "Codex state");
    const model = stateOptionalString(s.model, "model");
    const provider = stateOptionalString(s.provider, "provider");
    this.#items.restore(s.items);
    this.#totals.restore(s.totals);
    this.#model = model;
    this.#provider = provider;
  }

  map(value: unknown, position: number): MappedItem {
    const line = (value !== null && typeof value === "object" && !Array.isArray(value) ? value : {}) as Obj;
    const at = typeof line.timestamp === "string" ? Date.parse(line.timestamp) / 1000 : Number.NaN;
    const place: ItemPlace = {
      externalId: `line:${position}`,
      original: { format: CODEX_FORMAT, value: value as Json },
    };
    if (Number.isFinite(at) && at >= 0) place.timestamp = at;
    const payload = (line.payload !== null && typeof line.payload === "object" ? line.payload : {}) as Obj;
    const mapped =
      line.type === "response_item"
        ? this.#items.map(payload, place)
        : this.#kept(this.#line(line.type, payload), place);
    if (position === 1 && mapped.session?.id === undefined && this.#fileId !== undefined)
      mapped.session = { ...mapped.session, id: this.#fileId, source: CODEX_FORMAT };
    return mapped;
  }

  /** What a line that is no Responses item adds: its row's text and usage, session facts. */
  #line(type: unknown, payload: Obj): Kept {
    switch (type) {
      case "session_meta":
        this.#provider = text(payload.model_provider);
        return { session: sessionFacts(payload) };
      case "turn_context": {
        const model = text(payload.model);
        const session: SessionFacts = {};
        if (model !== undefined && this.#model === undefined) session.model = model;
        if (model !== undefined) this.#model = model;
        if (text(payload.cwd) !== undefined) session.cwd = text(payload.cwd);
        return { session };
      }
      case "event_msg":
        if (payload.type === "token_count")
          return { usage: this.#totals.next(payload, this.#model ?? "unknown", this.#provider) };
        if (payload.type === "thread_name_updated" && text(payload.thread_name) !== undefined)
          return { session: { title: text(payload.thread_name) } };
        return {};
      case "compacted":
        return { content: text(payload.message) ?? null };
      default:
        return { unknown: typeof type === "string" ? type : "(none)" };
    }
  }

  /** The inactive row of a line that is no conversation message. */
  #kept(kept: Kept, place: ItemPlace): MappedItem {
    const message: MessageInput = { role: "system", content: kept.content ?? null, active: false, ...place };
    if (kept.usage !== undefined) message.usage = kept.usage;
    const mapped: MappedItem = { messages: [message] };
    if (kept.session !== undefined) mapped.session = kept.session;
    if (kept.unknown !== undefined) mapped.unknown = kept.unknown;
    return mapped;
  }
}

/** What a kept line adds beyond its original. */
interface Kept {
  content?: string | null;
  usage?: UsageInput | undefined;
  session?: SessionFacts;
  unknown?: string;
}

/** What a `session_meta` payload says of its session. */
function sessionFacts(meta: Obj): SessionFacts {
  const facts: SessionFacts = { source: CODEX_FORMAT };
  if (text(meta.id) !== undefined) facts.id = text(meta.id);
  if (text(meta.cwd) !== undefined) facts.cwd = text(meta.cwd);
  const started = typeof meta.timestamp === "string" ? Date.parse(meta.timestamp) / 1000 : Number.NaN;
  if (Number.isFinite(started) && started >= 0) facts.startedAt = started;
  const parent = text(meta.forked_from_id) ?? spawnParent(meta.source);
  if (parent !== undefined) facts.parentSessionId = parent;
  const metadata: { [key: string]: Json } = {};
  for (const key of [
    "originator",
    "cli_version",
    "model_provider",
    "source",
    "git",
    "agent_nickname",
    "agent_role",
  ])
    if (meta[key] !== undefined && meta[key] !== null) metadata[key] = meta[key] as Json;
  if (Object.keys(metadata).length > 0) facts.metadata = { codex: metadata };
  return facts;
}

/** The parent thread of a subagent's session: `source: { subagent: { thread_spawn: … } }`. */
function spawnParent(source: unknown): string | undefined {
  const sub = (source as { subagent?: { thread_spawn?: { parent_thread_id?: unknown } } } | null)?.subagent;
  return text(sub?.thread_spawn?.parent_thread_id);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
