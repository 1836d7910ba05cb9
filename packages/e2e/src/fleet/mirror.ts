/**
 * The fleet's search check: an embedded store built from the rows the server holds, then the
 * same searches on both, compared hit for hit (route, order, session, role, snippet, time, tool).
 *
 * The mirror gets every session, then every message in the server's id order, one append each
 * with its stored timestamp: its ids keep the server's order (a server id maps to the mirror id
 * at the same position), so ranking ties, which FTS5 breaks by rowid, fall the same way.
 */
import type { Message, SearchOptions, SearchResult, Session } from "@sessiondb/core";

/** The Store calls the check makes; the server store answers with promises. */
export interface SearchableStore {
  listSessions(options: object): Session[] | Promise<Session[]>;
  getMessages(id: string, options: object): Message[] | Promise<Message[]>;
  search(query: string, options: SearchOptions): SearchResult | Promise<SearchResult>;
}

/** The embedded store the mirror is written into. */
export interface MirrorStore {
  createSession(input: object): unknown;
  appendMessage(sessionId: string, message: object): number;
  transaction<T>(fn: () => T): T;
}

export interface Mirror {
  /** Server message id → mirror message id. */
  ids: Map<number, number>;
  sessions: number;
  messages: number;
}

/** Copy every session and message of `from` into the empty `to`, in the server's id order. */
export async function buildMirror(from: SearchableStore, to: MirrorStore): Promise<Mirror> {
  const sessions = [
    ...(await from.listSessions({ includeArchived: true, limit: 1_000_000, orderBy: "started" })),
  ].sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id));
  const all: Message[] = [];
  for (const s of sessions) all.push(...(await from.getMessages(s.id, { includeInactive: true })));
  all.sort((a, b) => a.id - b.id);
  const ids = new Map<number, number>();
  // One transaction: the mirror is written at memory speed, not one fsync per message.
  to.transaction(() => {
    for (const s of sessions) {
      to.createSession({
        id: s.id,
        source: s.source,
        startedAt: s.startedAt,
        ...(s.model !== null ? { model: s.model } : {}),
      });
    }
    for (const m of all) {
      const id = to.appendMessage(m.sessionId, {
        role: m.role,
        content: m.content,
        timestamp: m.timestamp,
        ...(m.toolName !== null ? { toolName: m.toolName } : {}),
        ...(m.toolCallId !== null ? { toolCallId: m.toolCallId } : {}),
      });
      ids.set(m.id, id);
    }
  });
  return { ids, sessions: sessions.length, messages: all.length };
}

/** One search, as both stores must answer it. */
export interface Probe {
  query: string;
  options: SearchOptions;
}

/** A hit as the comparison sees it: the message (by the mirror's id), where, who, what, when. */
function shape(result: SearchResult, map: (id: number) => number | undefined): string {
  return JSON.stringify({
    route: result.route,
    hits: result.hits.map((h) => [map(h.messageId), h.sessionId, h.role, h.snippet, h.timestamp, h.toolName]),
  });
}

/**
 * Run every probe on both stores; the differences, described (empty when identical).
 *
 * Where both take the same route the answers must be identical, hit for hit. One difference of
 * route is the engine's, not the store's: on a SQLite whose trigram tokenizer stops at a NUL
 * (3.45.1, inside sqld 0.24.32) core answers substring and CJK searches by LIKE instead of the
 * trigram index. LIKE orders by time, makes its own snippets and reads whole rows (a tool row's
 * whole output, where the index holds its first 8192 characters); so then, over every match
 * (limit 1000), the server must find every row the embedded store finds, and each row it finds
 * must show the query in its snippet.
 */
export async function compareSearches(
  server: SearchableStore,
  mirror: SearchableStore,
  mapping: Mirror,
  probes: Probe[],
): Promise<{ differences: string[]; hits: number; routes: Record<string, number>; byEngine: number }> {
  const differences: string[] = [];
  const routes: Record<string, number> = {};
  let hits = 0;
  let byEngine = 0;
  const toMirror = (id: number) => mapping.ids.get(id);
  for (const { query, options } of probes) {
    const what = `search(${JSON.stringify(query)}, ${JSON.stringify(options)})`;
    const [a, b] = [await server.search(query, options), await mirror.search(query, options)];
    routes[a.route] = (routes[a.route] ?? 0) + 1;
    hits += a.hits.length;
    if (a.route === b.route) {
      const [want, got] = [shape(a, toMirror), shape(b, (id) => id)];
      if (want !== got)
        differences.push(`${what}: server ${want.slice(0, 400)} — embedded ${got.slice(0, 400)}`);
      continue;
    }
    if (!(a.route === "like" && b.route === "trigram")) {
      differences.push(`${what}: the server took route ${a.route}, the embedded store ${b.route}`);
      continue;
    }
    byEngine++;
    const wide = { ...options, limit: 1000, offset: 0 };
    const [all, expected] = [await server.search(query, wide), await mirror.search(query, wide)];
    const found = new Set(all.hits.map((h) => toMirror(h.messageId)));
    const missing = expected.hits.filter((h) => !found.has(h.messageId)).map((h) => h.messageId);
    const needle = query.toLowerCase();
    const unmarked = all.hits.filter((h) => !h.snippet.toLowerCase().includes(`«${needle}»`));
    if (missing.length > 0 || unmarked.length > 0)
      differences.push(
        `${what} by LIKE on the server: misses embedded (trigram) hits [${missing.join(",")}]; hits without the query in their snippet [${unmarked.map((h) => h.messageId).join(",")}]`,
      );
  }
  return { differences, hits, routes, byEngine };
}
