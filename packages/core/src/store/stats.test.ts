/**
 * idx_messages_role serves store.stats()'s count by role and nothing else. SQLite has no
 * statistics telling it that a role matches a fifth of the store: as a plain index, it made a
 * lookup by session and role walk every message of that role (a session list's previews took
 * 2.7 s instead of 3 ms at 100k). It is partial on a condition only the count names. Here every
 * query the store runs across its reads and searches (every route, filtered by role) is explained
 * on the same file with its parameters, and only the count by role may use the index; made a
 * plain index, the previews and the role-filtered searches fail this.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { queryPlan, tempDir, testDriver, wrappingDriver } from "../../test/support/driver.js";
import type { SqlValue } from "../driver.js";
import type { SearchOptions } from "../fts/search-options.js";
import { nodeFsHost } from "../host/node-fs.js";
import { createStore, type Store } from "../store.js";

let dir: ReturnType<typeof tempDir>;
let store: Store;
/** Each statement the store ran, with the parameters of its last run. */
const ran = new Map<string, SqlValue[]>();

beforeEach(() => {
  dir = tempDir();
  ran.clear();
  const recording = wrappingDriver((sql, statement) => ({
    run: (...params) => (ran.set(sql, params), statement.run(...params)),
    get: (...params) => (ran.set(sql, params), statement.get(...params)),
    all: (...params) => (ran.set(sql, params), statement.all(...params)),
  }));
  store = createStore(recording, dir.file("state.db"), { host: nodeFsHost });
});

afterEach(() => {
  store.close();
  dir.cleanup();
});

function fill(): void {
  for (const [id, source] of [
    ["a", "cli"],
    ["b", "gateway"],
  ] as const) {
    store.createSession({ id, source });
    store.appendMessages(id, [
      { role: "system", content: "You deploy services." },
      { role: "user", content: "please deploy the migration to staging 部署 now" },
      {
        role: "assistant",
        content: "deploying the migration",
        toolCalls: [{ id: `call-${id}`, name: "shell", arguments: "{}" }],
      },
      { role: "tool", toolName: "shell", toolCallId: `call-${id}`, content: "migration applied: ok" },
      { role: "user", content: "thanks, deploy went fine" },
    ]);
  }
  store.updateSession("b", { archived: true });
}

/** Every query the store ran so far, with its plan on a connection of its own (which cannot
 * see the store connection's temporary tables: the queries of those are left out). */
function plans(): Array<{ sql: string; plan: string }> {
  const conn = testDriver.open(dir.file("state.db"), { readOnly: true });
  try {
    return [...ran]
      .filter(([sql]) => /^\s*(SELECT|WITH)\b/i.test(sql) && !/\btemp\./i.test(sql))
      .map(([sql, params]) => ({ sql, plan: queryPlan(conn, sql, ...params) }));
  } finally {
    conn.close();
  }
}

describe("idx_messages_role", () => {
  it("counts stats() by role without reading the table", () => {
    fill();
    const stats = store.stats();
    expect(stats.messages).toEqual({ total: 10, byRole: { system: 2, user: 4, assistant: 2, tool: 2 } });
    const byRole = plans().filter(({ sql }) => /GROUP BY role/.test(sql));
    expect(byRole).toHaveLength(1);
    expect(byRole[0]?.plan).toMatch(/COVERING INDEX idx_messages_role/);
  });

  it("is in no plan of a read or a search, those filtered by role included", () => {
    fill();
    for (const orderBy of ["started", "activity"] as const) {
      store.listSessions({ orderBy, includeArchived: true });
      store.listSessions({ orderBy, source: "cli" });
    }
    store.getMessages("a");
    store.getMessages("a", { last: 2 });
    store.getMessages("a", { afterId: 1, beforeId: 4, includeInactive: true, limit: 2 });
    store.messageCount();
    store.messageCount("a");
    const roleFilters: SearchOptions[] = [
      { roles: ["user"] },
      { roles: ["user", "assistant"], sort: "newest" },
      { roles: ["tool"], sort: "oldest" },
      { roles: ["user"], sessionId: "a", since: 0, until: 2e10 },
      { roles: ["assistant"], sources: ["cli", "gateway"] },
    ];
    let searches = 0;
    for (const query of ["deploy", '"the migration"', "migra", "de", "部署"]) {
      for (const filter of roleFilters) {
        for (const substring of [false, true]) {
          const first = store.search(query, { ...filter, substring, limit: 1 });
          if (first.nextCursor)
            store.search(query, { ...filter, substring, limit: 1, cursor: first.nextCursor });
          searches++;
        }
      }
    }
    expect(searches).toBe(50);

    const explained = plans();
    const filtered = explained.filter(({ sql }) => /\brole\s*(IN|=)/i.test(sql));
    // The role filters really were among them: the previews and each route's filtered query.
    expect(filtered.length).toBeGreaterThanOrEqual(5);
    const offenders = explained.filter(({ plan }) => plan.includes("idx_messages_role"));
    expect(offenders).toEqual([]);
  });
});
