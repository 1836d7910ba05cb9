/**
 * Counts the Store API does not offer (sessions archived, messages by role), read over a second,
 * read-only connection from the same driver, so the process still loads one SQLite library.
 * Undefined when the adapter does not expose its driver.
 */
import type { SessionSummary, SqliteDriver, Store } from "@sessiondb/core";

export interface StoreCounts {
  sessions: number;
  archived: number;
  messages: number;
  byRole: Record<string, number>;
}

export function readCounts(
  driver: SqliteDriver | undefined,
  path: string,
  waitMs = 20_000,
): StoreCounts | undefined {
  if (!driver) return undefined;
  const conn = driver.open(path, { readOnly: true });
  try {
    // A writer in DELETE mode blocks readers for the length of its commit: wait like the store does.
    conn.exec(`PRAGMA busy_timeout = ${Math.floor(waitMs)}`);
    const s = conn
      .prepare("SELECT count(*) AS n, coalesce(sum(archived != 0), 0) AS archived FROM sessions")
      .get();
    const byRole: Record<string, number> = {};
    let messages = 0;
    for (const row of conn
      .prepare("SELECT role, count(*) AS n FROM messages GROUP BY role ORDER BY role")
      .all()) {
      byRole[String(row.role)] = Number(row.n);
      messages += Number(row.n);
    }
    return { sessions: Number(s?.n ?? 0), archived: Number(s?.archived ?? 0), messages, byRole };
  } finally {
    conn.close();
  }
}

/** Every session (archived included) in one read, so the list is one consistent snapshot. */
export function allSessions(store: Store, source?: string): SessionSummary[] {
  return store.listSessions({
    includeArchived: true,
    limit: Number.MAX_SAFE_INTEGER,
    ...(source ? { source } : {}),
  });
}
