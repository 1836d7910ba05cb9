/**
 * The Agents SDK's `Session` over a sessiondb store: the history is the session's active rows in
 * id order, one row per item, each holding the item as given (`original`) next to the columns
 * search, the CLI and `serve` read. Removing an item (popItem, clearSession, a replaced suffix)
 * marks its row inactive: it stays searchable and visible with `includeInactive`, never given
 * back. An applied history transaction leaves an inactive marker row, externalId
 * `op:<operationId>`, in the same transaction as the change, so a replay finds it and changes
 * nothing.
 */
import {
  type AgentInputItem,
  type RunContext,
  type RunContextAwareSession,
  type SessionHistoryRewriteArgs,
  type SessionHistoryRewriteAwareSession,
  type SessionHistoryTransactionArgs,
  type SessionHistoryTransactionAwareSession,
  UserError,
} from "@openai/agents-core";
import {
  type CreateSessionInput,
  InvalidInputError,
  type Json,
  type Message,
  type MessageInput,
} from "@sessiondb/core";
import {
  type AnyStore,
  atomically,
  type StoreOperation as Operation,
  runOn,
  storeOption,
} from "@sessiondb/formats";
import { itemRows, rowItems } from "./items.js";
import { RunUsage } from "./usage.js";

/** Options of `new SessionDbSession(…)`. */
export interface SessionDbSessionOptions {
  /** Any sessiondb store: `openStore` of @sessiondb/node, /bun, /deno, or @sessiondb/libsql. */
  store: AnyStore;
  /** The session's id (default: a random UUID). The session is created on first use. */
  sessionId?: string;
  /** The session record's fields when this creates it (`source` defaults to "openai-agents");
   * an existing session keeps what it has. */
  session?: Partial<Omit<CreateSessionInput, "id">>;
}

/** The format name of a history transaction's marker row. */
const OPERATION_FORMAT = "openai-agents-operation";
/** Rows marked inactive per read while clearing (a page, not the whole session, in memory). */
const CLEAR_PAGE = 500;

/** A durable Agents SDK Session in a sessiondb store. */
export class SessionDbSession
  implements SessionHistoryTransactionAwareSession, SessionHistoryRewriteAwareSession, RunContextAwareSession
{
  /** The Runner passes its RunContext: its usage is recorded with the items a run writes. */
  readonly acceptsRunContext = true as const;
  readonly #store: AnyStore;
  readonly #usage = new RunUsage();
  readonly #id: string;
  readonly #record: CreateSessionInput;
  #created: Promise<void> | undefined;

  constructor(options: SessionDbSessionOptions) {
    const store = storeOption(options);
    const id = options.sessionId ?? globalThis.crypto.randomUUID();
    if (typeof id !== "string" || id === "")
      throw new InvalidInputError("options.sessionId", "must be a non-empty string");
    this.#store = store;
    this.#id = id;
    this.#record = { source: "openai-agents", ...options.session, id };
  }

  async getSessionId(): Promise<string> {
    await this.#ready();
    return this.#id;
  }

  /** The history, or its newest `limit` items (oldest first); reads only that page. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0))
      throw new InvalidInputError("limit", "must be a non-negative integer");
    if (limit === 0) return [];
    await this.#ready();
    const id = this.#id;
    const rows = await runOn(this.#store, function* (s) {
      return (yield s.getMessages(id, limit === undefined ? {} : { last: limit })) as Message[];
    });
    const items = rows.flatMap(rowItems);
    return limit === undefined ? items : items.slice(-limit);
  }

  /** Appends the items in one transaction; a bad item refuses them all (`items[i]` named). The
   * usage the run added since its last write is recorded with the last of them. */
  async addItems(items: AgentInputItem[], runContext?: RunContext<unknown>): Promise<void> {
    const rows = itemRows(items);
    if (rows.length === 0) return;
    const counted = this.#withUsage(rows, runContext);
    await this.#ready();
    const id = this.#id;
    await runOn(this.#store, function* (s) {
      yield appended(s, id, rows);
    });
    counted();
  }

  /** Takes the newest item out (its row marked inactive), in one transaction: two processes
   * popping at once never get the same item. */
  async popItem(): Promise<AgentInputItem | undefined> {
    await this.#ready();
    const id = this.#id;
    return atomically(this.#store, function* (s) {
      const [row] = (yield s.getMessages(id, { last: 1 })) as Message[];
      if (row === undefined) return undefined;
      yield s.updateMessage(id, row.id, { active: false });
      return rowItems(row).at(-1);
    });
  }

  /** Takes every item out (rows marked inactive, kept for search and the CLI). */
  async clearSession(): Promise<void> {
    await this.#ready();
    const id = this.#id;
    await atomically(this.#store, (s) => clearing(s, id));
  }

  /** Replaces the whole history with `items` (a compaction and what follows it), atomically. */
  async replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
    const rows = itemRows(items);
    await this.#ready();
    const id = this.#id;
    await atomically(this.#store, function* (s) {
      yield* clearing(s, id);
      if (rows.length > 0) yield appended(s, id, rows);
    });
  }

  /** `replace_function_call`: the first call with that id becomes the replacement, later ones go. */
  async applyHistoryMutations(args: SessionHistoryRewriteArgs): Promise<void> {
    const mutations = args?.mutations;
    if (!Array.isArray(mutations)) throw new InvalidInputError("mutations", "must be an array");
    const patches = mutations.map((m, i) => {
      if (m?.type !== "replace_function_call")
        throw new InvalidInputError(`mutations[${i}].type`, 'must be "replace_function_call"');
      const [row] = itemRows([m.replacement], `mutations[${i}].replacement`) as [MessageInput];
      return { callId: m.callId, row };
    });
    if (patches.length === 0) return;
    await this.#ready();
    const id = this.#id;
    await atomically(this.#store, function* (s) {
      const rows = (yield s.getMessages(id)) as Message[];
      for (const { callId, row } of patches) {
        let kept = false;
        for (const stored of rows) {
          const item = rowItems(stored)[0] as { type?: string; callId?: string } | undefined;
          if (stored.toolCalls === null || item?.type !== "function_call" || item.callId !== callId) continue;
          const { content, toolCalls, original } = row;
          yield s.updateMessage(id, stored.id, kept ? { active: false } : { content, toolCalls, original });
          kept = true;
        }
      }
    });
  }

  /** Appends or replaces a suffix atomically, once per operation id (see the file's comment). */
  async applyHistoryTransaction(
    args: SessionHistoryTransactionArgs,
    runContext?: RunContext<unknown>,
  ): Promise<void> {
    const { operationId, transaction } = args ?? ({} as SessionHistoryTransactionArgs);
    if (typeof operationId !== "string" || operationId.trim() === "")
      throw new InvalidInputError("operationId", "must be a non-empty string");
    const kind = transaction?.type;
    if (kind !== "append_items" && kind !== "replace_suffix")
      throw new InvalidInputError("transaction.type", 'must be "append_items" or "replace_suffix"');
    const rows = itemRows(
      kind === "append_items" ? transaction.items : transaction.replacement,
      `transaction.${kind === "append_items" ? "items" : "replacement"}`,
    );
    const expected = kind === "replace_suffix" ? transaction.expectedSuffix : [];
    if (kind === "replace_suffix") itemRows(expected, "transaction.expectedSuffix");
    const snapshot = canonical(transaction);
    const counted = this.#withUsage(rows, runContext);
    await this.#ready();
    const id = this.#id;
    await atomically(this.#store, function* (s) {
      const [last] = (yield s.getMessages(id, { last: 1, includeInactive: true })) as Message[];
      const marker = (yield s.appendMessage(id, {
        role: "system",
        content: null,
        active: false,
        externalId: `op:${operationId}`,
        original: {
          format: OPERATION_FORMAT,
          value: { operationId, transaction: JSON.parse(snapshot) as Json },
        },
      })) as number;
      if (last !== undefined && marker <= last.id) {
        // The id was there already: this operation was applied before.
        const [stored] = (yield s.getMessages(id, {
          afterId: marker - 1,
          limit: 1,
          includeInactive: true,
        })) as Message[];
        const before = (stored?.original?.value as { transaction?: Json } | undefined)?.transaction;
        if (canonical(before) !== snapshot)
          throw new UserError("Session history operation was already applied with a different transaction.");
        return;
      }
      if (expected.length > 0) {
        const suffix = (yield s.getMessages(id, { last: expected.length })) as Message[];
        if (canonical(suffix.flatMap(rowItems)) !== canonical(expected))
          throw new UserError("Session history suffix no longer matches the transaction precondition.");
        for (const row of suffix) yield s.updateMessage(id, row.id, { active: false });
      }
      if (rows.length > 0) yield appended(s, id, rows);
    });
    // Also after a replay: its rows (and their usage) were stored by the first application.
    counted();
  }

  /** Puts the usage `runContext` added since this session's last stored write on the last row
   * (usage goes with a row only when it is stored); the answer marks it counted. */
  #withUsage(rows: MessageInput[], runContext: RunContext<unknown> | undefined): () => void {
    const last = rows.at(-1);
    if (last === undefined) return () => {};
    const { usage, done } = this.#usage.since(runContext, this.#record.model ?? "unknown");
    if (usage !== undefined) last.usage = usage;
    return done;
  }

  /** Creates the session record once (an upsert: an existing session keeps its fields). */
  #ready(): Promise<void> {
    if (this.#created === undefined) {
      const record = this.#record;
      this.#created = runOn(this.#store, function* (s) {
        yield s.createSession(record);
      }).catch((error: unknown) => {
        this.#created = undefined;
        throw error;
      });
    }
    return this.#created;
  }
}

/** Marks every active row inactive, a page at a time. */
function* clearing(s: AnyStore, id: string): Operation<void> {
  let afterId = 0;
  for (;;) {
    const page = (yield s.getMessages(id, { afterId, limit: CLEAR_PAGE })) as Message[];
    for (const row of page) yield s.updateMessage(id, row.id, { active: false });
    if (page.length < CLEAR_PAGE) return;
    afterId = (page.at(-1) as Message).id;
  }
}

/** appendMessages, with a refused row named by its item's index (one row per item). */
function appended(s: AnyStore, id: string, rows: MessageInput[]): unknown {
  const named = (error: unknown) => {
    if (error instanceof InvalidInputError && /^messages\[\d+\]/.test(error.field)) {
      const field = error.field.replace(/^messages/, "items");
      const problem = error.message.replace(/^Invalid [^:]+: /, "").replace(/\. Nothing was stored\.$/, "");
      return new InvalidInputError(field, problem);
    }
    return error;
  };
  try {
    const result = s.appendMessages(id, rows);
    return result instanceof Promise ? result.catch((e: unknown) => Promise.reject(named(e))) : result;
  } catch (error) {
    throw named(error);
  }
}

/** JSON with sorted keys: equal for items equal but for key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
