/**
 * The three framework bindings against the same work through the plain Store, on the store the
 * target opens (each binding is plain JS over any store): the rows of bindings-work.ts, each
 * timed with tinybench in alternating rounds (`bindings.<binding>.<row>.store` is the binding,
 * `.raw` the plain Store).
 */
import type { Engine } from "../engine.js";
import { bindingsWork } from "./bindings-work.js";
import { storeVsRawInProcess } from "./cold.js";
import type { SuiteContext } from "./context.js";

export async function bindingsSuite(engine: Engine, ctx: SuiteContext): Promise<void> {
  const store = engine.openStore(ctx.db);
  try {
    for (const row of await bindingsWork(store))
      await storeVsRawInProcess(ctx, row.name, { store: row.binding, raw: row.plain });
  } finally {
    store.close();
  }
}
