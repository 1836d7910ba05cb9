/**
 * The Claude Agent SDK's `SessionStore` over a sessiondb store. Each key's transcript is one
 * session (keys.ts) and each entry one row or more, mapped by the Claude Code line rules of
 * @sessiondb/formats: searchable text, tool calls paired with their results, usage once per
 * response, and the entry itself as the row's original, which `load` gives back. Entries that
 * are no conversation message (titles, tags, snapshots, modes…) are inactive rows: kept, given
 * back, never shown as the conversation. An entry's `uuid` is its row's externalId, so a retried
 * or replayed batch stores nothing twice; an entry without one is stored each time, as the SDK
 * asks.
 */
import { InvalidInputError, type Message, type MessageInput, type Session } from "@sessiondb/core";
import {
  type AnyStore,
  atomically,
  CLAUDE_CODE_FORMAT,
  ClaudeCodeLines,
  type StoreOperation as Operation,
  runOn as run,
  type SessionFacts,
  storeOption,
} from "@sessiondb/formats";
import { checkEntries } from "./entries.js";
import { belongsTo, checkKey, type Key, type KeyRecord, recordOf, sessionIdOf, withRecord } from "./keys.js";
import {
  foldSessionSummary,
  type SessionKey,
  type SessionStore,
  type SessionStoreEntry,
  type SessionSummaryEntry,
} from "./sdk.js";

/** The source of the sessions this store creates. */
export const CLAUDE_AGENT_SDK_SOURCE = "claude-agent-sdk";

/** Stored rows read back before an append when this store has not followed the session itself
 * (its first append here, or after a failed one), so a response split across batches has its
 * usage counted once and a tool result finds its call's name (both are near the end). */
const TAIL_ROWS = 64;
/** Sessions whose line mapper a SessionStore keeps between appends (the oldest is let go). */
const FOLLOWED = 256;
/** Sessions read per page by `listSessions`. */
const LIST_PAGE = 500;

/** Options of `new SessionDbSessionStore(…)`. */
export interface SessionDbSessionStoreOptions {
  /** Any sessiondb store: `openStore` of @sessiondb/node, /bun, /deno, or @sessiondb/libsql. */
  store: AnyStore;
}

/** A durable Claude Agent SDK SessionStore in a sessiondb store. */
export class SessionDbSessionStore implements SessionStore {
  readonly #store: AnyStore;
  readonly #now: () => number;
  /** The line mapper of each session this store appended to, with the last row id it saw: the
   * next append reads only the rows stored after that (by any writer; usually none), not the
   * session's tail again. Taken out while an append runs, put back once it committed, so a
   * failed or retried transaction never leaves a mapper that saw lines the store does not hold. */
  readonly #followed = new Map<string, Followed>();
  #lastMtime = 0;

  constructor(options: SessionDbSessionStoreOptions) {
    this.#store = storeOption(options);
    this.#now = Date.now;
  }

  /** Stores a batch of transcript entries in one transaction: all of them, or none. */
  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    const k = checkKey(key);
    const batch = checkEntries(entries);
    if (batch.length === 0) return;
    // Strictly increasing within this store, so two appends in one millisecond still order.
    const mtime = Math.max(Math.floor(this.#now()), this.#lastMtime + 1);
    this.#lastMtime = mtime;
    const id = sessionIdOf(k);
    const known = this.#followed.get(id);
    this.#followed.delete(id);
    let start = known;
    const followed = await atomically(this.#store, (s) => {
      // A retried transaction starts again from the stored rows: the first try may have fed
      // the mapper lines that were rolled back.
      const from = start;
      start = undefined;
      return appendBatch(s, k, batch, mtime, from);
    });
    if (this.#followed.size >= FOLLOWED) this.#followed.delete(this.#followed.keys().next().value as string);
    this.#followed.set(id, followed);
  }

  /** The key's entries in the order appended, or null when it was never written. */
  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    const k = checkKey(key);
    return run(this.#store, function* (s) {
      const session = (yield s.getSession(sessionIdOf(k))) as Session | undefined;
      if (session === undefined || !belongsTo(session, k)) return null;
      const rows = (yield s.getMessages(session.id, { includeInactive: true })) as Message[];
      return entriesOf(rows);
    });
  }

  /** The project's main transcripts with the time each was last appended to (epoch ms). */
  async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    const records = await this.#mainRecords(projectKey);
    return records.map((record) => ({ sessionId: record.sessionId, mtime: record.mtime }));
  }

  /** The summaries of the project's main transcripts, as each append folded them (the SDK's
   * listSessions reads these in one call instead of loading every transcript). A session that
   * has none (one imported from Claude Code's files, not yet appended to here) is left out:
   * the SDK fills it in from `listSessions` and `load`. */
  async listSessionSummaries(projectKey: string): Promise<SessionSummaryEntry[]> {
    const records = await this.#mainRecords(projectKey);
    return records.flatMap((record) => (record.summary === undefined ? [] : [record.summary]));
  }

  /** The records of the project's main transcripts, a page of sessions at a time. */
  #mainRecords(projectKey: string): Promise<KeyRecord[]> {
    if (typeof projectKey !== "string" || projectKey === "")
      throw new InvalidInputError("projectKey", "must be a non-empty string");
    return run(this.#store, function* (s) {
      const out: KeyRecord[] = [];
      for (let offset = 0; ; offset += LIST_PAGE) {
        const page = (yield s.listSessions({
          source: CLAUDE_AGENT_SDK_SOURCE,
          includeArchived: true,
          limit: LIST_PAGE,
          offset,
        })) as Session[];
        for (const session of page) {
          const record = recordOf(session);
          if (record?.projectKey === projectKey && record.subpath === undefined) out.push(record);
        }
        if (page.length < LIST_PAGE) return out;
      }
    });
  }

  /** Deletes the key's transcript; a main transcript's subagent transcripts go with it. */
  async delete(key: SessionKey): Promise<void> {
    const k = checkKey(key);
    await atomically(this.#store, function* (s) {
      const session = (yield s.getSession(sessionIdOf(k))) as Session | undefined;
      if (session === undefined || !belongsTo(session, k)) return;
      if (k.subpath === undefined)
        for (const subpath of recordOf(session)?.subpaths ?? []) {
          const child = sessionIdOf({ ...k, subpath });
          if ((yield s.getSession(child)) !== undefined) yield s.deleteSession(child);
        }
      yield s.deleteSession(session.id);
    });
  }

  /** The subpaths of the subagent transcripts written under a session. */
  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    const k = checkKey({ projectKey: key?.projectKey, sessionId: key?.sessionId });
    return run(this.#store, function* (s) {
      const session = (yield s.getSession(k.sessionId)) as Session | undefined;
      if (session === undefined || !belongsTo(session, k)) return [];
      return [...(recordOf(session)?.subpaths ?? [])];
    });
  }
}

/** The entries a session's rows hold, in order: each row that carries a line as its original. */
function entriesOf(rows: Message[]): SessionStoreEntry[] {
  const out: SessionStoreEntry[] = [];
  for (const row of rows)
    if (row.original?.format === CLAUDE_CODE_FORMAT) out.push(row.original.value as SessionStoreEntry);
  return out;
}

/** A session's line mapper, the newest row id it has seen, and the session's message count
 * once its last append committed: the same count at the next append means no one stored a
 * message since, so there is nothing to catch up on. */
interface Followed {
  lines: ClaudeCodeLines;
  lastId: number;
  count: number;
}

/** Whether `session` lacks a field `facts` would fill (createSession fills only those). */
function fills(session: Session, facts: { [field: string]: unknown }): boolean {
  return Object.entries(facts).some(
    ([field, value]) => value !== undefined && (session as unknown as Record<string, unknown>)[field] == null,
  );
}

function* appendBatch(
  s: AnyStore,
  key: Key,
  batch: SessionStoreEntry[],
  mtime: number,
  known: Followed | undefined,
): Operation<Followed> {
  const id = sessionIdOf(key);
  const main = key.subpath === undefined ? undefined : key.sessionId;
  const session = (yield s.getSession(id)) as Session | undefined;
  if (session !== undefined && !belongsTo(session, key))
    throw new InvalidInputError(
      "key.projectKey",
      `session ${JSON.stringify(id)} belongs to project ${JSON.stringify(recordOf(session)?.projectKey)}`,
    );
  let followed: Followed;
  if (session === undefined || known === undefined) {
    const target = main === undefined ? { id } : { id, parentSessionId: main };
    followed = { lines: new ClaudeCodeLines(target), lastId: 0, count: 0 };
    const tail =
      session === undefined
        ? []
        : ((yield s.getMessages(id, { last: TAIL_ROWS, includeInactive: true })) as Message[]);
    follow(followed, tail);
  } else {
    followed = known;
    // What other writers stored since (an importer, another process).
    if (session.messageCount !== followed.count)
      follow(
        followed,
        (yield s.getMessages(id, { afterId: followed.lastId, includeInactive: true })) as Message[],
      );
  }
  const { rows, owners, facts } = mapBatch(followed.lines, batch);
  if (main !== undefined) yield* noteSubpath(s, key, main, mtime);
  const record: KeyRecord = {
    ...recordOf(session),
    projectKey: key.projectKey,
    sessionId: key.sessionId,
    mtime,
  };
  if (key.subpath !== undefined) record.subpath = key.subpath;
  else
    record.summary = foldSessionSummary(
      record.summary,
      { projectKey: key.projectKey, sessionId: key.sessionId },
      batch,
      { mtime },
    );
  const { ended: _ended, metadata, ...fields } = facts;
  if (session === undefined)
    yield s.createSession({
      ...fields,
      id,
      source: CLAUDE_AGENT_SDK_SOURCE,
      metadata: { ...metadata, claudeAgentSdk: record as never },
    });
  else {
    // Fills in what the session lacks (a main session made bare for its subagent, before its
    // own first lines came); what it has stays.
    if (fills(session, fields)) yield s.createSession({ ...fields, id, source: CLAUDE_AGENT_SDK_SOURCE });
    // The record's mtime is the storage write time the SDK's listSessions reports: rewritten
    // with every append, in the same transaction.
    const patch: { metadata: ReturnType<typeof withRecord>; title?: string } = {
      metadata: { ...metadata, ...withRecord(session, record) },
    };
    if (facts.title !== undefined && facts.title !== null) patch.title = facts.title;
    yield s.updateSession(id, patch);
  }
  let ids: number[];
  try {
    ids = (yield s.appendMessages(id, rows)) as number[];
  } catch (error) {
    throw byEntry(error, owners);
  }
  // A duplicate's id is its stored row's (older); new rows are the session's newest.
  const before = followed.lastId;
  followed.count = session?.messageCount ?? 0;
  for (const [k, rowId] of ids.entries()) {
    if (rowId <= before) continue;
    if (rows[k]?.active !== false) followed.count++;
    if (rowId > followed.lastId) followed.lastId = rowId;
  }
  return followed;
}

/** Feeds stored rows to a session's mapper (their lines, in order) and notes the newest id. */
function follow(followed: Followed, rows: Message[]): void {
  for (const entry of entriesOf(rows)) followed.lines.map(entry, 0);
  const newest = rows.at(-1)?.id;
  if (newest !== undefined && newest > followed.lastId) followed.lastId = newest;
}

/** The batch's rows, which entry each came from, and what the entries say of the session. */
function mapBatch(lines: ClaudeCodeLines, batch: SessionStoreEntry[]) {
  const rows: MessageInput[] = [];
  const owners: number[] = [];
  const facts: SessionFacts = {};
  batch.forEach((entry, i) => {
    const mapped = lines.map(entry, i + 1);
    for (const row of mapped.messages) {
      // Without a uuid an entry has no identity: stored each time it comes (a title, a tag).
      if (entry.uuid === undefined) row.externalId = null;
      rows.push(row);
      owners.push(i);
    }
    for (const [name, value] of Object.entries(mapped.session ?? {}))
      if (name === "title" || !(name in facts)) Object.assign(facts, { [name]: value });
  });
  return { rows, owners, facts };
}

/** Records a subagent transcript's subpath on its main session (created bare if the subagent
 * is written first), for `listSubkeys` and for `delete` of the main transcript. */
function* noteSubpath(s: AnyStore, key: Key, main: string, mtime: number): Operation<void> {
  const parent = (yield s.getSession(main)) as Session | undefined;
  const record = recordOf(parent);
  if (parent !== undefined && !belongsTo(parent, key))
    throw new InvalidInputError(
      "key.projectKey",
      `session ${JSON.stringify(main)} belongs to another project`,
    );
  const subpaths = record?.subpaths ?? [];
  if (subpaths.includes(key.subpath as string)) return;
  const next: KeyRecord = {
    mtime,
    ...record,
    projectKey: key.projectKey,
    sessionId: main,
    subpaths: [...subpaths, key.subpath as string],
  };
  if (parent === undefined)
    yield s.createSession({
      id: main,
      source: CLAUDE_AGENT_SDK_SOURCE,
      metadata: withRecord(undefined, next),
    });
  else yield s.updateSession(main, { metadata: withRecord(parent, next) });
}

/** A row's invalid field, named by its entry: `messages[3].content` → `entries[2] (content)`. */
function byEntry(error: unknown, owners: number[]): unknown {
  if (!(error instanceof InvalidInputError)) return error;
  const match = /^messages\[(\d+)\]\.?(.*)$/.exec(error.field);
  if (match === null) return error;
  const entry = owners[Number(match[1])];
  const problem = error.message.replace(/^Invalid [^:]*: /, "").replace(/ Nothing was stored\.$/, "");
  return new InvalidInputError(`entries[${entry}]`, `its ${match[2] || "row"} ${problem}`);
}
