/** Reads the CLI makes through the Store API. */
import type { SessionSummary, Store } from "@sessiondb/core";

/** Every session (archived included) in one read, so the list is one consistent snapshot. */
export function allSessions(store: Store, source?: string): SessionSummary[] {
  return store.listSessions({
    includeArchived: true,
    limit: Number.MAX_SAFE_INTEGER,
    ...(source ? { source } : {}),
  });
}
