/**
 * `store.stats()`: what is in the store, counted in one read snapshot so the numbers agree with
 * each other while other processes write. Sessions carry running totals (tool calls, tokens,
 * cost: kept by appendMessage and recordUsage), so this is one scan of the sessions table and
 * a walk of idx_messages_role for the count by role: its entries are a role and an id, so the
 * count never reads message text. Both still grow with the store, but slowly. A store that was
 * only ever opened read-only since an older build wrote it has no such index yet, and its count
 * reads the table.
 */
import { all, get, type Op } from "../engine/effects.js";
import type { FtsStatus } from "../fts/index.js";
import { readFtsStatus } from "../fts/status.js";
import type { Role } from "../model/types.js";
import { guard, snapshot } from "../policy/calls.js";
import { MESSAGES, ROLE_INDEX_TERM, SESSIONS } from "../schema/definition.js";

/** Counts across the whole store (archived sessions included). */
export interface StoreCounts {
  sessions: { total: number; archived: number };
  /** Messages, inactive ones included, in total and by role (roles with none are left out). */
  messages: { total: number; byRole: Partial<Record<Role, number>> };
  /** Tool calls the assistant messages made. */
  toolCalls: number;
  /** Token totals recorded with recordUsage. */
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; reasoning: number };
  /** Cost recorded with recordUsage, in US dollars. */
  costUsd: number;
}

const SESSION_TOTALS = `SELECT count(*) AS total, coalesce(sum(archived != 0), 0) AS archived,
  coalesce(sum(tool_call_count), 0) AS tool_calls, coalesce(sum(input_tokens), 0) AS input,
  coalesce(sum(output_tokens), 0) AS output, coalesce(sum(cache_read_tokens), 0) AS cache_read,
  coalesce(sum(cache_write_tokens), 0) AS cache_write, coalesce(sum(reasoning_tokens), 0) AS reasoning,
  coalesce(sum(estimated_cost_usd), 0) AS cost FROM ${SESSIONS.name}`;

/** Through idx_messages_role (its condition named): an index walk that never reads message text. */
export const BY_ROLE = `SELECT role, count(*) AS n FROM ${MESSAGES.name} WHERE ${ROLE_INDEX_TERM} GROUP BY role ORDER BY role`;

/** The counts and the index's state, in one snapshot. */
export function* stats(): Op<StoreStats> {
  yield* guard("open");
  return yield* snapshot(readStats);
}

function* readStats(): Op<StoreStats> {
  const s = (yield* get(SESSION_TOTALS)) ?? {};
  const byRole: Partial<Record<Role, number>> = {};
  let messages = 0;
  for (const row of yield* all(BY_ROLE)) {
    byRole[String(row.role) as Role] = Number(row.n);
    messages += Number(row.n);
  }
  return {
    sessions: { total: Number(s.total ?? 0), archived: Number(s.archived ?? 0) },
    messages: { total: messages, byRole },
    toolCalls: Number(s.tool_calls ?? 0),
    tokens: {
      input: Number(s.input ?? 0),
      output: Number(s.output ?? 0),
      cacheRead: Number(s.cache_read ?? 0),
      cacheWrite: Number(s.cache_write ?? 0),
      reasoning: Number(s.reasoning ?? 0),
    },
    costUsd: Number(s.cost ?? 0),
    fts: yield* readFtsStatus(),
  };
}

/** `store.stats()`: the counts and the full-text index's state. */
export interface StoreStats extends StoreCounts {
  fts: FtsStatus;
}
