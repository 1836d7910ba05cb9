/**
 * The sync runner: performs an operation's effects on the store's in-process connection, through
 * its context (the prepared-statement cache, and write/read/snapshot with patience, fail-open and
 * error classification). One loop, no promises: an operation costs what its statements cost plus
 * a few generator steps.
 */
import type { StoreContext } from "../store/context.js";
import { readsTextWhole } from "../store/rows.js";
import type { Effect, Op } from "./effects.js";

/** Run `op` to completion; its result or its error. */
export function runSync<T>(ctx: StoreContext, op: Op<T>): T {
  let step = op.next();
  for (;;) {
    if (step.done) return step.value;
    let result: unknown;
    try {
      result = perform(ctx, step.value);
    } catch (error) {
      step = op.throw(error);
      continue;
    }
    step = op.next(result);
  }
}

function perform(ctx: StoreContext, effect: Effect): unknown {
  switch (effect.kind) {
    case "get":
      return ctx.statement(effect.sql).get(...effect.params);
    case "all":
      if (effect.fresh) return ctx.conn.prepare(effect.sql).all(...effect.params);
      return ctx.statement(effect.sql).all(...effect.params);
    case "run":
      return ctx.statement(effect.sql).run(...effect.params);
    case "exec":
      return ctx.conn.exec(effect.sql);
    case "write":
      return ctx.write(() => runSync(ctx, effect.body()), effect.options);
    case "read":
      return ctx.read(() => runSync(ctx, effect.body()));
    case "snapshot":
      return ctx.snapshot(() => runSync(ctx, effect.body()));
    case "now":
      return ctx.now();
    case "readsTextWhole":
      return readsTextWhole(ctx.conn);
    case "remember": {
      let facts = remembered.get(ctx.conn);
      if (!facts) {
        facts = new Map();
        remembered.set(ctx.conn, facts);
      }
      if (!facts.has(effect.key)) facts.set(effect.key, runSync(ctx, effect.body()));
      return facts.get(effect.key);
    }
  }
}

/** `remember` results, per connection. */
const remembered = new WeakMap<object, Map<string, unknown>>();
