/**
 * Conformance: paging a search with cursors. Walking every page with `nextCursor` returns exactly
 * the hits of one big query, in its order, on every route (word, phrase, trigram, LIKE, filtered)
 * and every sort; a walk in time order is exact while other connections append and delete; a
 * rank walk never picks up messages appended after its first page, keeps its ranking between
 * pages (interleaved with other walks, continued in another connection) and after a write goes
 * on by position in the ranking as it is then; bad cursors are typed errors.
 */
import type { SearchOptions } from "@sessiondb/core";
import { assert, type ConformanceStore, type ConformanceTarget, fixtureTest, throwsCode } from "./harness.js";

/** Walk every page of a search with cursors; the ids in the order returned. */
async function walk(
  store: ConformanceStore,
  query: string,
  options: SearchOptions,
  limit: number,
): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.search(query, { ...options, limit, ...(cursor ? { cursor } : {}) });
    ids.push(...page.hits.map((h) => h.messageId));
    cursor = page.nextCursor;
    if (cursor === undefined) return ids;
    assert.equal(page.hits.length, limit, "a cursor comes only with a full page");
  }
  throw new Error("the walk did not end");
}

const all = async (store: ConformanceStore, query: string, options: SearchOptions) =>
  (await store.search(query, { ...options, limit: 1000 })).hits.map((h) => h.messageId);

/** Messages that rank differently (repetitions, lengths) and share timestamps in pairs. */
async function seed(store: ConformanceStore, session: string, count: number, first = 0): Promise<void> {
  await store.createSession({ id: session, source: session.startsWith("gw") ? "gateway" : "cli" });
  await store.appendMessages(
    session,
    Array.from({ length: count }, (_, k) => {
      const i = first + k;
      const role = (["user", "assistant", "tool"] as const)[i % 3] ?? "user";
      return {
        role,
        ...(role === "tool" ? { toolName: "bash" } : {}),
        content: `${"flamingo ".repeat(1 + (i % 4))}connection refused ${"padding ".repeat(i % 7)}item ${i}`,
        timestamp: 1000 + Math.floor(i / 2),
      };
    }),
  );
}

export function searchPagingSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);

  describe("search paging", () => {
    test("walking the cursors returns exactly the hits of one big query, on every route and sort", async ({
      open,
    }) => {
      const store = await open();
      await seed(store, "cli-1", 40);
      await seed(store, "gw-1", 17, 40);
      const cases: Array<[string, SearchOptions]> = [
        ["flamingo", {}],
        ['"connection refused"', {}],
        ["amingo", { substring: true }],
        ["flamingo", { roles: ["tool"] }], // LIKE (tool rows are indexed by prefix only)
        ["flamingo", { roles: ["user", "assistant"], sources: ["gateway"] }],
        ["flamingo", { sessionId: "cli-1", since: 1005, until: 1025 }],
      ];
      for (const [query, base] of cases) {
        for (const sort of ["rank", "newest", "oldest"] as const) {
          const options = { ...base, sort };
          const expected = await all(store, query, options);
          assert.ok(expected.length > 7, `${query} ${JSON.stringify(options)} finds enough to page`);
          for (const limit of [1, 7]) {
            assert.deepEqual(
              await walk(store, query, options, limit),
              expected,
              `${query} ${JSON.stringify(options)} by ${limit}`,
            );
          }
        }
      }
      // A page that is not full has no cursor; a limit of 0 has none either.
      assert.equal((await store.search("flamingo", { limit: 1000 })).nextCursor, undefined);
      assert.equal((await store.search("flamingo", { limit: 0 })).nextCursor, undefined);
      // offset then cursor: the walk goes on after the offset page.
      const first = await store.search("flamingo", { offset: 5, limit: 5 });
      const rest = await store.search("flamingo", { cursor: first.nextCursor, limit: 1000 });
      assert.deepEqual(
        [...first.hits, ...rest.hits].map((h) => h.messageId),
        (await all(store, "flamingo", {})).slice(5),
      );
    });

    test("a walk in time order is exact while another connection appends and deletes", async ({ open }) => {
      const store = await open();
      await seed(store, "cli-1", 30);
      await seed(store, "gone", 6, 30);
      const other = await open();
      for (const sort of ["newest", "oldest"] as const) {
        const expected = await all(store, "flamingo", { sort });
        const page = await store.search("flamingo", { sort, limit: 4 });
        const seen = page.hits.map((h) => h.messageId);
        // Appends with timestamps before, between and after the walk's position.
        await other.createSession({ id: `late-${sort}`, source: "cli" });
        await other.appendMessages(`late-${sort}`, [
          { role: "user", content: "flamingo late and old", timestamp: 1 },
          { role: "user", content: "flamingo late and mid", timestamp: 1007 },
          { role: "user", content: "flamingo late and new", timestamp: 9_999_999 },
        ]);
        let cursor = page.nextCursor;
        while (cursor) {
          const next = await store.search("flamingo", { sort, limit: 4, cursor });
          seen.push(...next.hits.map((h) => h.messageId));
          cursor = next.nextCursor;
        }
        assert.deepEqual(seen, expected, `sort ${sort}`);
      }
      // A message deleted mid-walk is simply not returned; nothing else moves.
      const page = await store.search("flamingo", { sort: "oldest", limit: 4 });
      const before = await all(store, "flamingo", { sort: "oldest" });
      await other.deleteSession("gone");
      const after = new Set(await all(store, "flamingo", { sort: "oldest" }));
      const seen = page.hits.map((h) => h.messageId);
      let cursor = page.nextCursor;
      while (cursor) {
        const next = await store.search("flamingo", { sort: "oldest", limit: 4, cursor });
        seen.push(...next.hits.map((h) => h.messageId));
        cursor = next.nextCursor;
      }
      assert.deepEqual(
        seen,
        before.filter((id, i) => i < 4 || after.has(id)),
      );
    });

    test("a rank walk never returns a message appended after its first page", async ({ open }) => {
      const store = await open();
      await seed(store, "cli-1", 30);
      const page = await store.search("flamingo", { limit: 5 });
      const before = new Set(await all(store, "flamingo", {}));
      const other = await open();
      await other.createSession({ id: "late", source: "cli" });
      const late = await other.appendMessages("late", [
        { role: "user", content: "flamingo ".repeat(30) }, // would rank first
        { role: "user", content: "flamingo" },
      ]);
      const seen = page.hits.map((h) => h.messageId);
      let cursor = page.nextCursor;
      while (cursor) {
        const next = await store.search("flamingo", { limit: 5, cursor });
        seen.push(...next.hits.map((h) => h.messageId));
        cursor = next.nextCursor;
      }
      for (const id of late) assert.ok(!seen.includes(id), `appended message ${id} joined the walk`);
      assert.ok(seen.every((id) => before.has(id)));
      assert.ok((await all(store, "flamingo", {})).includes(late[0] as number), "a new search finds it");
    });

    test("a rank walk keeps its ranking between pages: interleaved walks, another connection, a write", async ({
      open,
    }) => {
      const store = await open();
      await seed(store, "cli-1", 40);
      for (const n of [0, 1, 2]) await seed(store, `gone-${n}`, 5, 40 + 5 * n);
      const other = await open();
      const cases: Array<[string, SearchOptions]> = [
        ["flamingo", {}],
        ["amingo", { substring: true }],
        ["flamingo", { roles: ["user", "assistant"] }],
      ];
      // Walks advancing one page each in turn: each keeps its own ranking (the same search
      // twice, with another limit, shares it), and none disturbs another.
      const walks = [...cases.map(([q, o]) => ({ q, o, limit: 3 })), { q: "flamingo", o: {}, limit: 5 }].map(
        (w) => ({ ...w, seen: [] as number[], cursor: undefined as string | undefined, done: false }),
      );
      const expected = await Promise.all(walks.map((w) => all(store, w.q, w.o)));
      while (walks.some((w) => !w.done)) {
        for (const w of walks) {
          if (w.done) continue;
          const page = await store.search(w.q, {
            ...w.o,
            limit: w.limit,
            ...(w.cursor ? { cursor: w.cursor } : {}),
          });
          w.seen.push(...page.hits.map((h) => h.messageId));
          w.cursor = page.nextCursor;
          w.done = w.cursor === undefined;
        }
      }
      for (const [i, w] of walks.entries())
        assert.deepEqual(w.seen, expected[i], `${w.q} ${JSON.stringify(w.o)} by ${w.limit}`);
      // A cursor goes on in another connection (which reads the ranking for itself): a first
      // page's (it carries no rank) and a later page's.
      for (const [query, options] of cases) {
        const first = await store.search(query, { ...options, limit: 4 });
        const second = await store.search(query, { ...options, limit: 4, cursor: first.nextCursor });
        const rest = await other.search(query, { ...options, limit: 1000, cursor: second.nextCursor });
        const expected = await all(store, query, options);
        assert.deepEqual(
          [...first.hits, ...second.hits, ...rest.hits].map((h) => h.messageId),
          expected,
          `${query} ${JSON.stringify(options)} in another connection`,
        );
        const fromFirst = await other.search(query, { ...options, limit: 1000, cursor: first.nextCursor });
        assert.deepEqual(
          fromFirst.hits.map((h) => h.messageId),
          expected.slice(4),
          `${query} ${JSON.stringify(options)}: a first page's cursor in another connection`,
        );
      }
      // A write after the walk's ranking was kept: appended messages stay out, a deleted one
      // is not returned, and the walk goes on by position in the ranking as it is now.
      for (const [n, [query, options]] of cases.entries()) {
        const first = await store.search(query, { ...options, limit: 4 });
        const second = await store.search(query, { ...options, limit: 4, cursor: first.nextCursor });
        const seen = [...first.hits, ...second.hits].map((h) => h.messageId);
        await other.createSession({ id: `late-${n}`, source: "cli" });
        const late = await other.appendMessages(`late-${n}`, [
          { role: "user", content: "flamingo flamingo flamingo connection refused" },
        ]);
        await other.deleteSession(`gone-${n}`);
        const now = (await all(store, query, options)).filter((id) => !late.includes(id));
        const rest: number[] = [];
        let cursor = second.nextCursor;
        while (cursor) {
          const page = await store.search(query, { ...options, limit: 4, cursor });
          rest.push(...page.hits.map((h) => h.messageId));
          cursor = page.nextCursor;
        }
        assert.deepEqual(rest, now.slice(seen.length), `${query} ${JSON.stringify(options)} after a write`);
        const fromFirst = await store.search(query, { ...options, limit: 1000, cursor: first.nextCursor });
        assert.deepEqual(
          fromFirst.hits.map((h) => h.messageId),
          now.slice(first.hits.length),
          `${query} ${JSON.stringify(options)}: a first page's cursor after a write`,
        );
      }
    });

    test("a cursor that is not this search's is refused with a typed error", async ({ open }) => {
      const store = await open();
      await seed(store, "cli-1", 12);
      const { nextCursor } = await store.search("flamingo", { limit: 2 });
      assert.ok(nextCursor);
      const timeCursor = (await store.search("flamingo", { limit: 2, sort: "newest" })).nextCursor;
      const refused: Array<[string, () => unknown, string]> = [
        ["garbage", () => store.search("flamingo", { cursor: "garbage" }), "search.cursor"],
        ["a number", () => store.search("flamingo", { cursor: 5 as never }), "search.cursor"],
        ["truncated", () => store.search("flamingo", { cursor: nextCursor.slice(0, -3) }), "search.cursor"],
        ["another query", () => store.search("connection", { cursor: nextCursor }), "search.cursor"],
        [
          "another filter",
          () => store.search("flamingo", { cursor: nextCursor, roles: ["user"] }),
          "search.cursor",
        ],
        [
          "another sort",
          () => store.search("flamingo", { cursor: timeCursor, sort: "oldest" }),
          "search.cursor",
        ],
        [
          "rank cursor, time sort",
          () => store.search("flamingo", { cursor: nextCursor, sort: "newest" }),
          "search.cursor",
        ],
        [
          "with an offset",
          () => store.search("flamingo", { cursor: nextCursor, offset: 3 }),
          "search.offset",
        ],
      ];
      for (const [label, call, field] of refused) {
        const error = await throwsCode(call, "INVALID_INPUT");
        assert.equal((error as { field?: string }).field, field, label);
      }
      // The limit may change between pages; null means no cursor.
      assert.equal((await store.search("flamingo", { cursor: nextCursor, limit: 3 })).hits.length, 3);
      assert.equal((await store.search("flamingo", { cursor: null as never, limit: 3 })).hits.length, 3);
    });
  });
}
