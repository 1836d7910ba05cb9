/** Reads the CLI makes through the Store API. */
import type { SessionSummary } from "@sessiondb/core";
import type { CliStore } from "./server.js";

/** Every session (archived included) in one read, so the list is one consistent snapshot. */
export async function allSessions(store: CliStore, source?: string): Promise<SessionSummary[]> {
  return await store.listSessions({
    includeArchived: true,
    limit: Number.MAX_SAFE_INTEGER,
    ...(source ? { source } : {}),
  });
}
