/**
 * What the pages read, over the Store API only. Every store call is awaited, so these functions
 * work unchanged when an engine's Store becomes asynchronous.
 *
 * The Store lists sessions by source and in start or activity order; the other list filters
 * (model, dates, errors, parent) and sorts (messages, tokens, cost) and the usage aggregates scan
 * the session list in this process. That is ~90 ms for 2,500 sessions (a 100k-message store);
 * the plain, source-filtered listing pages through the Store directly.
 */
import type { Session, SessionSummary } from "@sessiondb/core";
import { addUsd, exactUsd } from "../money.js";
import type { CliStore } from "../server.js";

/** Sessions per list page. */
export const LIST_PAGE = 50;

export type SessionSort = "started" | "activity" | "messages" | "tokens" | "cost";
export const SESSION_SORTS: readonly SessionSort[] = ["started", "activity", "messages", "tokens", "cost"];

export interface SessionFilter {
  source?: string;
  model?: string;
  /** Epoch seconds: started at or after. */
  from?: number;
  /** Epoch seconds: started before. */
  to?: number;
  /** Only sessions that ended with an error. */
  errors: boolean;
  archived: boolean;
  /** Only children of this session. */
  parent?: string;
  sort: SessionSort;
  /** 1-based. */
  page: number;
}

export interface SessionPage {
  sessions: SessionSummary[];
  /** Known when the list was scanned (a filter or sort the Store does not do itself). */
  total: number | undefined;
  hasNext: boolean;
}

/** An end reason that reports a failure rather than a normal end. */
const ERROR_END = /error|fail|crash|exception|abort|panic|timeout|killed/i;

/** The session ended because something went wrong (the Store records why a session ended). */
export function endedWithError(session: { endReason: string | null }): boolean {
  return session.endReason !== null && ERROR_END.test(session.endReason);
}

export function tokensOf(s: Session): number {
  return s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheWriteTokens + s.reasoningTokens;
}

/** Every session (archived too unless asked otherwise), optionally of one source. */
async function scan(
  store: CliStore,
  source: string | undefined,
  includeArchived: boolean,
): Promise<SessionSummary[]> {
  return await store.listSessions({
    includeArchived,
    limit: Number.MAX_SAFE_INTEGER,
    orderBy: "started",
    ...(source ? { source } : {}),
  });
}

const SORT_KEY: Record<Exclude<SessionSort, "started">, (s: SessionSummary) => number> = {
  activity: (s) => s.lastActiveAt,
  messages: (s) => s.messageCount,
  tokens: tokensOf,
  cost: (s) => exactUsd(s.estimatedCostUsd),
};

/** One page of the session list. */
export async function listSessions(store: CliStore, filter: SessionFilter): Promise<SessionPage> {
  const offset = (filter.page - 1) * LIST_PAGE;
  const scanned =
    filter.model !== undefined ||
    filter.from !== undefined ||
    filter.to !== undefined ||
    filter.errors ||
    filter.parent !== undefined ||
    (filter.sort !== "started" && filter.sort !== "activity");
  if (!scanned) {
    const rows = await store.listSessions({
      limit: LIST_PAGE + 1,
      offset,
      orderBy: filter.sort === "activity" ? "activity" : "started",
      includeArchived: filter.archived,
      ...(filter.source ? { source: filter.source } : {}),
    });
    return { sessions: rows.slice(0, LIST_PAGE), total: undefined, hasNext: rows.length > LIST_PAGE };
  }
  const all = (await scan(store, filter.source, filter.archived)).filter(
    (s) =>
      (filter.model === undefined || s.model === filter.model) &&
      (filter.from === undefined || s.startedAt >= filter.from) &&
      (filter.to === undefined || s.startedAt < filter.to) &&
      (!filter.errors || endedWithError(s)) &&
      (filter.parent === undefined || s.parentSessionId === filter.parent),
  );
  if (filter.sort !== "started") {
    const key = SORT_KEY[filter.sort];
    all.sort((a, b) => key(b) - key(a) || b.startedAt - a.startedAt);
  }
  return {
    sessions: all.slice(offset, offset + LIST_PAGE),
    total: all.length,
    hasNext: offset + LIST_PAGE < all.length,
  };
}

export interface Facets {
  sources: string[];
  models: string[];
  sessions: number;
}

const FACETS_TTL_MS = 30_000;
const facetCache = new WeakMap<CliStore, { at: number; facets: Facets }>();

/** Distinct sources and models for the filter menus; cached briefly (only suggestions depend on it). */
export async function facets(store: CliStore, now = Date.now()): Promise<Facets> {
  const cached = facetCache.get(store);
  if (cached && now - cached.at < FACETS_TTL_MS) return cached.facets;
  const all = await scan(store, undefined, true);
  const distinct = (values: Array<string | null>) =>
    [...new Set(values.filter((v): v is string => typeof v === "string" && v !== ""))].sort();
  const result = {
    sources: distinct(all.map((s) => s.source)),
    models: distinct(all.map((s) => s.model)),
    sessions: all.length,
  };
  facetCache.set(store, { at: now, facets: result });
  return result;
}

export interface Totals {
  sessions: number;
  input: number;
  output: number;
  cache: number;
  reasoning: number;
  cost: number;
  /** The part of `cost` that is an estimate from list prices (usage rows whose billing mode is
   * "estimated": an importer's, for a format that records no cost). */
  estimatedCost: number;
  calls: number;
}

/** The billing mode of usage whose cost is estimated from a price table (@sessiondb/formats). */
const ESTIMATED = "estimated";

const zero = (): Totals => ({
  sessions: 0,
  input: 0,
  output: 0,
  cache: 0,
  reasoning: 0,
  cost: 0,
  estimatedCost: 0,
  calls: 0,
});

/** Days the per-day chart spans at most (the most recent ones). */
export const MAX_DAYS = 366;

export interface UsageReport {
  /** UTC day (YYYY-MM-DD) → totals of the sessions that started that day, every day in the range. */
  byDay: Array<[string, Totals]>;
  /** Model → totals of its usage rows (a session may use several models). */
  byModel: Array<[string, Totals]>;
  bySource: Array<[string, Totals]>;
  total: Totals;
}

function dayOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** Token and cost totals per day, model and source for sessions started in [from, to). */
export async function usageReport(
  store: CliStore,
  range: { source?: string; from?: number; to?: number },
): Promise<UsageReport> {
  const sessions = (await scan(store, range.source, true)).filter(
    (s) =>
      (range.from === undefined || s.startedAt >= range.from) &&
      (range.to === undefined || s.startedAt < range.to),
  );
  const days = new Map<string, Totals>();
  const models = new Map<string, Totals>();
  const sources = new Map<string, Totals>();
  const total = zero();
  const into = (map: Map<string, Totals>, key: string) => {
    const found = map.get(key);
    if (found) return found;
    const fresh = zero();
    map.set(key, fresh);
    return fresh;
  };
  for (const s of sessions) {
    // The session's day, its source and the total: each counts its tokens, cost and calls.
    const groups = [into(days, dayOf(s.startedAt)), into(sources, s.source), total];
    for (const t of groups) {
      t.sessions++;
      t.input += s.inputTokens;
      t.output += s.outputTokens;
      t.cache += s.cacheReadTokens + s.cacheWriteTokens;
      t.reasoning += s.reasoningTokens;
      t.cost = addUsd(t.cost, s.estimatedCostUsd);
    }
    for (const row of await store.getUsage(s.id)) {
      const t = into(models, row.model || "(unknown)");
      t.sessions++;
      t.calls += row.callCount;
      t.input += row.inputTokens;
      t.output += row.outputTokens;
      t.cache += row.cacheReadTokens + row.cacheWriteTokens;
      t.reasoning += row.reasoningTokens;
      t.cost = addUsd(t.cost, row.costUsd);
      const estimated = row.billingMode === ESTIMATED ? row.costUsd : 0;
      t.estimatedCost = addUsd(t.estimatedCost, estimated);
      for (const group of groups) {
        group.calls += row.callCount;
        group.estimatedCost = addUsd(group.estimatedCost, estimated);
      }
    }
  }
  // Every day from the first to the last with recorded usage (quiet days show as gaps), at most
  // the last MAX_DAYS of them: sessions with no usage do not stretch the axis.
  const used = [...days.entries()].filter(
    ([, t]) => t.input + t.output + t.cache + t.reasoning + t.cost + t.calls > 0,
  );
  const sorted = used.map(([d]) => d).sort();
  const byDay: Array<[string, Totals]> = [];
  if (sorted.length) {
    const end = Date.parse(`${sorted.at(-1)}T00:00:00Z`);
    const start = Math.max(Date.parse(`${sorted[0]}T00:00:00Z`), end - (MAX_DAYS - 1) * 86_400_000);
    for (let t = start; t <= end; t += 86_400_000) {
      const day = new Date(t).toISOString().slice(0, 10);
      byDay.push([day, days.get(day) ?? zero()]);
    }
  }
  const byCost = (map: Map<string, Totals>) =>
    [...map.entries()].sort(
      (a, b) => b[1].cost - a[1].cost || b[1].input + b[1].output - (a[1].input + a[1].output),
    );
  return { byDay, byModel: byCost(models), bySource: byCost(sources), total };
}
