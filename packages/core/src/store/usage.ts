/**
 * Token and cost accounting (spec §8): per (model, provider, base URL, billing mode, task) rows
 * whose counters add up, mirrored into the session's totals in the same transaction.
 */

import { MAX_COST_USD } from "../constants.js";
import type { Row } from "../driver.js";
import { get, now, type Op, run } from "../engine/effects.js";
import { InvalidInputError } from "../errors.js";
import { toUsageRow, usageColumns } from "../model/rows.js";
import type { UsageInput, UsageRow } from "../model/types.js";
import * as valid from "../model/validate.js";
import { read, write } from "../policy/calls.js";
import { requireSession } from "./sessions.js";
import { selectText } from "./text-reads.js";

/** How far a counter may grow: integers every runtime reads exactly; a cost up to MAX_COST_USD.
 * The limits are SQL text, not binds. */
const TOKENS = { max: Number.MAX_SAFE_INTEGER, sql: `<= ${Number.MAX_SAFE_INTEGER}` };
const COST = { max: MAX_COST_USD, sql: `<= ${MAX_COST_USD}` };

/** The counters of one call: input field, session column, usage-row column, limit. */
const COUNTERS = [
  { field: "inputTokens", session: "input_tokens", usage: "input_tokens", limit: TOKENS },
  { field: "outputTokens", session: "output_tokens", usage: "output_tokens", limit: TOKENS },
  { field: "cacheReadTokens", session: "cache_read_tokens", usage: "cache_read_tokens", limit: TOKENS },
  { field: "cacheWriteTokens", session: "cache_write_tokens", usage: "cache_write_tokens", limit: TOKENS },
  { field: "reasoningTokens", session: "reasoning_tokens", usage: "reasoning_tokens", limit: TOKENS },
  { field: "costUsd", session: "estimated_cost_usd", usage: "cost_usd", limit: COST },
] as const;

type Counter = (typeof COUNTERS)[number];

/**
 * `col + ? <limit>` for every counter, so the write itself refuses a sum that would leave the
 * exact range (an int64 overflow turns into a REAL, which compares above the limit too). Adding 0
 * is never refused, so a counter an older version let pass the limit does not block the others.
 * Binds: (added, added) per counter.
 */
const guard = (column: (counter: Counter) => string): string =>
  COUNTERS.map((counter) => `(? = 0 OR ${column(counter)} + ? ${counter.limit.sql})`).join(" AND ");

/** Binds: the added counters, the session id, then the guard's. */
const ADD_TO_SESSION = `UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
   cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
   reasoning_tokens = reasoning_tokens + ?, estimated_cost_usd = estimated_cost_usd + ?
   WHERE id = ? AND ${guard((c) => c.session)}`;

/** Binds: the row's key, the added counters, the time, then the guard's. */
const ADD_TO_USAGE_ROW = `INSERT INTO session_model_usage (session_id, model, provider, base_url, billing_mode, task,
         call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(session_id, model, provider, base_url, billing_mode, task) DO UPDATE SET
         call_count = call_count + 1,
         input_tokens = input_tokens + excluded.input_tokens,
         output_tokens = output_tokens + excluded.output_tokens,
         cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
         cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
         reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
         cost_usd = cost_usd + excluded.cost_usd,
         updated_at = excluded.updated_at
       WHERE session_model_usage.call_count < ${Number.MAX_SAFE_INTEGER} AND ${guard((c) => `session_model_usage.${c.usage}`)}`;

/** Add token and cost counters for one (model, provider, base URL, billing mode, task). */
const USAGE_FIELDS = [
  "model",
  "provider",
  "baseUrl",
  "billingMode",
  "task",
  ...COUNTERS.map((counter) => counter.field),
] as const satisfies readonly (keyof UsageInput)[];

export function* recordUsage(sessionId: string, given: UsageInput): Op<void> {
  const id = valid.sessionId(sessionId);
  const usage = validUsage(given, "usage");
  const at = (yield* now()) / 1000;
  yield* write(() => addUsage(id, usage, at));
}

/** A usage record after validation: its row's key and the counters it adds. */
export interface ValidUsage {
  key: string[];
  added: number[];
}

/** Check a UsageInput (`field` names it in errors: "usage", "messages[2].usage"). */
export function validUsage(given: UsageInput, field: string): ValidUsage {
  const usage = valid.record(given, field, USAGE_FIELDS, field);
  const key = [
    valid.requiredText(usage.model, `${field}.model`, 500),
    valid.optionalText(usage.provider, `${field}.provider`, 500) ?? "",
    valid.optionalText(usage.baseUrl, `${field}.baseUrl`, 2000) ?? "",
    valid.optionalText(usage.billingMode, `${field}.billingMode`, 200) ?? "",
    valid.optionalText(usage.task, `${field}.task`, 200) ?? "",
  ];
  const added = COUNTERS.map((counter) =>
    counter.field === "costUsd"
      ? valid.amount(usage.costUsd, `${field}.costUsd`)
      : (valid.count(usage[counter.field], `${field}.${counter.field}`) ?? 0),
  );
  return { key, added };
}

/** Add a validated usage record to the session's totals and its usage row, inside the caller's
 * write transaction (a refusal throws, rolling back what the caller wrote with it). */
export function* addUsage(id: string, { key, added }: ValidUsage, at: number): Op<void> {
  const guardParams = added.flatMap((value) => [value, value]);
  const { changes } = yield* run(ADD_TO_SESSION, ...added, id, ...guardParams);
  if (changes === 0) {
    yield* requireSession(id);
    const totals = yield* get(`SELECT ${COUNTERS.map((c) => c.session)} FROM sessions WHERE id = ?`, id);
    throw refusal(totals, "session", added, "the session's total");
  }
  const upsert = yield* run(ADD_TO_USAGE_ROW, id, ...key, ...added, at, ...guardParams);
  if (upsert.changes === 0) {
    const row = yield* get(
      `SELECT ${COUNTERS.map((c) => c.usage)} FROM session_model_usage
       WHERE session_id = ? AND model = ? AND provider = ? AND base_url = ? AND billing_mode = ? AND task = ?`,
      id,
      ...key,
    );
    // Throwing rolls the session's totals back with it.
    throw refusal(row, "usage", added, "this usage row's total");
  }
}

/** The INVALID_INPUT for a refused guard: the first counter whose sum with the stored `row`
 * (read in the same transaction) leaves the exact range, else the usage row's call count. */
function refusal(
  row: Row | undefined,
  table: "session" | "usage",
  added: number[],
  what: string,
): InvalidInputError {
  const stored = (i: number): number => Number(row?.[(COUNTERS[i] as Counter)[table]]);
  const index = COUNTERS.findIndex(
    (counter, i) => added[i] !== 0 && !(stored(i) + (added[i] as number) <= counter.limit.max),
  );
  if (index < 0) {
    return new InvalidInputError(
      "usage",
      `${what} has counted ${Number.MAX_SAFE_INTEGER} calls, the most it can`,
    );
  }
  const { field, limit } = COUNTERS[index] as Counter;
  const bound =
    limit === COST
      ? `${MAX_COST_USD} dollars, the most a total may reach`
      : `${Number.MAX_SAFE_INTEGER}, the largest integer every runtime reads back exactly`;
  return new InvalidInputError(
    `usage.${field}`,
    `adding ${added[index]} to ${what} of ${stored(index)} would pass ${bound}`,
  );
}

/** Usage rows of a session. */
export function* getUsage(sessionId: string): Op<UsageRow[]> {
  const id = valid.sessionId(sessionId);
  return yield* read(() => selectUsage(id));
}

function* selectUsage(id: string): Op<UsageRow[]> {
  yield* requireSession(id);
  const rows = yield* selectText(
    (plain) => `SELECT ${usageColumns(plain)} FROM session_model_usage WHERE session_id = ?
     ORDER BY model, provider, base_url, billing_mode, task`,
    id,
  );
  return rows.map(toUsageRow);
}
