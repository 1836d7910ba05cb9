/**
 * The model checker's step: run one operation on the store and on the model, and compare the
 * answers — values and error codes alike. A difference throws an AssertionError that says which.
 */
import type { Role } from "@sessiondb/core";
import { assert, type ConformanceStore, type ConformanceTarget, transact } from "./harness.js";
import type { ModelOp, WriteOp } from "./model-ops.js";
import { expectedHits, queryText } from "./model-search.js";
import type { ModelState, Outcome } from "./model-state.js";
import * as model from "./model-state.js";
import { messageView, outcomeNow, outcomeOf, same, sessionView, write } from "./model-writes.js";

export interface Context {
  target: ConformanceTarget;
  store: ConformanceStore;
  state: ModelState;
  /** The store's clock (epoch seconds), moved on by one before each operation. */
  clock: number;
  reopen(): Promise<ConformanceStore>;
  /** What the sequences exercised ("append ok", "update INVALID_INPUT", "search fts+like hit"), so
   * a run's report shows that its operations reached the store and did not all fail alike. */
  tally: Map<string, number>;
}

const count = (ctx: Context, what: string) => ctx.tally.set(what, (ctx.tally.get(what) ?? 0) + 1);
const told = (o: Outcome<unknown>) => (o.ok ? "ok" : o.code);

/** Run `op` on the store and the model and compare what each answered. */
export async function step(ctx: Context, op: ModelOp): Promise<void> {
  ctx.clock++;
  const { state, store } = ctx;
  switch (op.op) {
    case "prune": {
      const actual = await outcomeOf<{ durationMs: number }>(() => store.deleteSessions(op.sids));
      const { durationMs: _, ...result } = actual.ok ? actual.value : { durationMs: 0 };
      same(
        actual.ok ? { ok: true, value: result } : actual,
        model.deleteSessions(state, op.sids),
        "deleteSessions",
      );
      return;
    }
    case "search":
      return search(ctx, op.search);
    case "read":
      await read(ctx, op.sid);
      return page(ctx, op.sid, op.last, op.after);
    case "list":
      return list(ctx, op.includeArchived);
    case "fts":
      return fts(ctx, op.action, op.chunk);
    case "tx":
      return transaction(ctx, op.ops, op.throws);
    case "reopen": {
      await store.close();
      same(await outcomeOf(() => store.getSession("a")), model.fail("STORE_CLOSED"), "a call after close");
      ctx.store = await ctx.reopen();
      return;
    }
    default: {
      const { call, apply } = write(op, state, ctx.clock);
      const actual = await outcomeOf(() => call(store));
      same(actual, apply(actual) as Outcome<unknown>, op.op);
      count(ctx, `${op.op} ${told(actual)}`);
    }
  }
}

/**
 * A transaction body of writes, each caught on its own (a savepoint), then committed or thrown.
 * Each call is checked against the model inside the body, as it returns (an update names a row
 * an earlier call of the body added), and the differences reported after the transaction.
 */
async function transaction(ctx: Context, ops: readonly WriteOp[], throws: boolean): Promise<void> {
  const next = model.cloneState(ctx.state);
  const boom = new Error("the body throws");
  const differences: unknown[] = [];
  const result = await outcomeOf(() =>
    transact(ctx.target, ctx.store, function* (tx) {
      for (const op of ops) {
        const { call, apply } = write(op, next, ctx.clock);
        const actual = (yield outcomeNow(() => call(tx))) as Outcome<unknown>;
        count(ctx, `${op.op} ${told(actual)} (in a transaction)`);
        try {
          same(actual, apply(actual) as Outcome<unknown>, `transaction: ${op.op}`);
        } catch (difference) {
          differences.push(difference);
        }
      }
      if (throws) throw boom;
      return "committed";
    }),
  );
  if (differences.length > 0) throw differences[0];
  count(ctx, throws ? "transaction rolled back" : "transaction committed");
  if (throws) {
    assert.deepEqual(
      result,
      { ok: false, code: `not a SessionDbError: ${String(boom)}` },
      "a transaction whose body throws",
    );
  } else {
    same(result, { ok: true, value: "committed" }, "transaction");
    ctx.state = next;
  }
}

async function search(ctx: Context, search: Parameters<typeof expectedHits>[1]): Promise<void> {
  const q = queryText(search.query);
  const options = {
    limit: 1000,
    ...(search.sessionId === undefined ? {} : { sessionId: search.sessionId }),
    ...(search.since === undefined ? {} : { since: search.since }),
    ...(search.kind === "substring" ? { substring: true } : {}),
    ...(search.roles ? { roles: search.roles as Role[] } : {}),
  };
  const what = `search(${JSON.stringify(q)}, ${JSON.stringify(options)})`;
  const result = await ctx.store.search(q, options);
  const expected = expectedHits(ctx.state, search);
  const found = new Set(result.hits.map((h) => h.messageId));
  count(ctx, `search ${search.kind} ${result.route} ${found.size > 0 ? "hits" : "none"}`);
  assert.equal(found.size, result.hits.length, `${what}: a message came twice`);
  assert.ok(
    expected.routes.includes(result.route),
    `${what}: route ${result.route}, expected ${expected.routes}`,
  );
  const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b);
  if (sorted(expected.lower).join() === sorted(expected.upper).join()) {
    assert.deepEqual(sorted(found), sorted(expected.lower), `${what}: the ids found`);
    return;
  }
  for (const id of expected.lower) assert.ok(found.has(id), `${what}: missed message ${id}`);
  for (const id of found)
    assert.ok(expected.upper.has(id), `${what}: found message ${id}, which does not match`);
}

async function read(ctx: Context, sid: string): Promise<void> {
  const { store, state } = ctx;
  const session = state.sessions.get(sid);
  const missing: Outcome<never> = model.fail(
    model.validSessionId(sid) ? "SESSION_NOT_FOUND" : "INVALID_INPUT",
  );
  const of = <T>(value: () => T): Outcome<T> => (session ? { ok: true, value: value() } : missing);
  const rows = state.messages.filter((m) => m.sessionId === sid);
  if (model.validSessionId(sid))
    assert.deepEqual(
      await store.getSession(sid),
      session ? sessionView(state, session) : undefined,
      "getSession",
    );
  same(
    await outcomeOf(() => store.getMessages(sid)),
    of(() => rows.filter((m) => m.active).map(messageView)),
    "getMessages",
  );
  same(
    await outcomeOf(() => store.getMessages(sid, { includeInactive: true })),
    of(() => rows.map(messageView)),
    "getMessages (includeInactive)",
  );
  same(
    await outcomeOf(() => store.messageCount(sid)),
    of(() => rows.length),
    "messageCount",
  );
  const usage = await outcomeOf<Array<Record<string, unknown>>>(() => store.getUsage(sid));
  const pickUsage = (u: { [key: string]: unknown }) => ({
    model: u.model,
    callCount: u.callCount,
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    costUsd: u.costUsd,
  });
  same(
    usage.ok ? { ok: true, value: usage.value.map(pickUsage) } : usage,
    of(() => session?.usage.map((u) => pickUsage({ ...u })) ?? []),
    "getUsage",
  );
}

async function list(ctx: Context, includeArchived: boolean): Promise<void> {
  const { store, state } = ctx;
  const listed = await store.listSessions({ limit: 1000, includeArchived });
  const expected = [...state.sessions.values()]
    .filter((s) => includeArchived || !s.archived)
    .sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? -1 : 1))
    .map((s) => ({
      id: s.id,
      messageCount: model.sessionCounters(state, s.id).messageCount,
      lastActiveAt: s.lastActivityAt ?? s.startedAt,
    }));
  assert.deepEqual(
    listed.map((s) => ({ id: s.id, messageCount: s.messageCount, lastActiveAt: s.lastActiveAt })),
    expected,
    "listSessions",
  );
  const stats = await store.stats();
  const sessions = [...state.sessions.values()];
  assert.deepEqual(
    {
      sessions: stats.sessions,
      messages: stats.messages.total,
      input: stats.tokens.input,
      fts: stats.fts.state,
    },
    {
      sessions: { total: sessions.length, archived: sessions.filter((s) => s.archived).length },
      messages: state.messages.length,
      input: sessions.reduce((n, s) => n + s.inputTokens, 0),
      fts: state.backfilling ? "backfilling" : "ready",
    },
    "stats",
  );
}

async function fts(ctx: Context, action: string, chunk: number): Promise<void> {
  const { store, state } = ctx;
  if (action === "rebuild") {
    const result = await store.rebuildFts();
    assert.equal(result.rebuilt, true, `rebuildFts: ${JSON.stringify(result)}`);
    state.backfilling = false;
  } else if (action === "start") {
    await store.startFtsBackfill();
    state.backfilling = true;
  } else if (action === "step") {
    const remains = await store.ftsBackfillStep({ chunkRows: chunk });
    if (!state.backfilling) assert.equal(remains, false, "ftsBackfillStep with no backfill pending");
    state.backfilling = remains;
    count(ctx, `backfill step ${remains ? "more" : "done"}`);
  } else if (action === "backfill") {
    await store.backfillFts();
    state.backfilling = false;
  } else if (action === "tick") {
    // A tick does one backfill step when one is pending: the window may end there.
    await store.maintenanceTick();
    if (state.backfilling) state.backfilling = (await store.ftsStatus()).state === "backfilling";
  } else if (action === "vacuum") {
    await store.vacuum();
  } else {
    await store.optimizeFts();
  }
  assert.equal(
    (await store.ftsStatus()).state,
    state.backfilling ? "backfilling" : "ready",
    `ftsStatus after ${action}`,
  );
}

/** Pages of a session: its last `last` messages, and the two after one picked by position. */
async function page(ctx: Context, sid: string, last: number, after: number): Promise<void> {
  const session = ctx.state.sessions.get(sid);
  if (!session) return;
  const rows = ctx.state.messages.filter((m) => m.sessionId === sid && m.active);
  const tail = last === 0 ? [] : rows.slice(-last);
  same(
    await outcomeOf(() => ctx.store.getMessages(sid, { last })),
    { ok: true, value: tail.map(messageView) },
    `getMessages({ last: ${last} })`,
  );
  const afterId = rows.length === 0 ? after : (rows[after % rows.length] as model.ModelMessage).id;
  const next = rows.filter((m) => m.id > afterId).slice(0, 2);
  same(
    await outcomeOf(() => ctx.store.getMessages(sid, { afterId, limit: 2 })),
    { ok: true, value: next.map(messageView) },
    `getMessages({ afterId: ${afterId}, limit: 2 })`,
  );
}

/** The checks at the end of every sequence: each session read whole, the list, the index sound. */
export async function finalChecks(ctx: Context, sessionIds: readonly string[]): Promise<void> {
  for (const sid of sessionIds) await read(ctx, sid);
  await list(ctx, true);
  assert.deepEqual(await ctx.store.checkIntegrity(), { ok: true, problems: [] }, "checkIntegrity");
}
