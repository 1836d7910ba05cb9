/**
 * Concurrent appends against serial ones, for a store that groups writes (group commit): the same
 * calls made all at once and one after the other must answer alike and leave the same rows. The
 * helpers here run such calls and read back what they stored, so every grouping store's tests
 * (the async double's in core, sqld's in libsql) compare the same things the same way.
 */
import type { AsyncStore } from "@sessiondb/core";

/** One append call: one message (`appendMessage`), or two in one `appendMessages` (`many`). */
export type AppendCall = { session: string; content: string; many: boolean };

/** Each call's ids, or its error's code (its name when it has none), in the calls' order; made
 * all at once (`concurrent`) or each after the last has answered. */
export async function appendCalls(
  store: AsyncStore,
  calls: readonly AppendCall[],
  concurrent: boolean,
): Promise<unknown[]> {
  const one = (call: AppendCall): Promise<unknown> =>
    (call.many
      ? store.appendMessages(call.session, [
          { role: "user", content: `${call.content} a` },
          { role: "assistant", content: `${call.content} b` },
        ])
      : store.appendMessage(call.session, { role: "user", content: call.content })
    ).then(
      (ids) => ids,
      (error: unknown) => (error as { code?: string }).code ?? (error as Error).name,
    );
  if (concurrent) return Promise.all(calls.map(one));
  const out: unknown[] = [];
  for (const call of calls) out.push(await one(call));
  return out;
}

/** Every session's messages (id, content) and its message counter, as stored. */
export async function storedMessages(store: AsyncStore, sessions: readonly string[]): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const id of sessions) {
    out[id] = {
      messages: (await store.getMessages(id)).map((m) => [m.id, m.content]),
      count: (await store.getSession(id))?.messageCount,
    };
  }
  return out;
}
