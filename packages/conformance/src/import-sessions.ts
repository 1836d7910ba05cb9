/**
 * Conformance: `store.importSessions(items)`. Sessions are written whole — record, messages,
 * flags, end — in paced steps while another connection keeps appending; a session the store
 * refuses is left out alone; sessions already stored are skipped; a child waits for a parent that
 * comes later and goes without one that never comes. Sync and async inputs; an abort, or an input
 * that fails, leaves each session whole or absent and lets the input go. Bad input, a read-only
 * store and a transaction are refused with nothing changed.
 */
import type { ImportSessionInput, ImportSessionsProgress } from "@sessiondb/core";
import {
  assert,
  type ConformanceStore,
  type ConformanceTarget,
  fixtureTest,
  refusesInTransactionAndAborted,
  rejectsEach,
  throwsCode,
  whileAppending,
} from "./harness.js";

function session(id: string, rows: number, extra: Partial<ImportSessionInput> = {}): ImportSessionInput {
  return {
    session: { id, source: "import", title: `title ${id}` },
    messages: Array.from({ length: rows }, (_, n) => ({
      role: n % 2 ? ("assistant" as const) : ("user" as const),
      content: `${id} walrus row ${n}`,
    })),
    ...extra,
  };
}

/** Each of `ids` is either absent or there with all of its `rows` messages. */
async function wholeOrAbsent(store: ConformanceStore, rows: Record<string, number>): Promise<string[]> {
  const present: string[] = [];
  for (const [id, n] of Object.entries(rows)) {
    if ((await store.getSession(id)) === undefined) continue;
    assert.equal(await store.messageCount(id), n, `session ${id} is there, but not whole`);
    present.push(id);
  }
  return present;
}

export function importSessionsSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);

  describe("importSessions", () => {
    test("writes each session whole, in steps, while another connection appends; refuses bad ones alone", async (f) => {
      const store = await f.open();
      await store.createSession({ id: "stored", source: "test" });
      await store.appendMessages("stored", [{ role: "user", content: "already here" }]);
      await store.createSession({ id: "empty", source: "test", title: "kept" });
      const other = await f.open();
      await other.createSession({ id: "live", source: "test" });
      const items: unknown[] = [
        session("big", 300, { archived: true, pinned: true, ended: { reason: "done", at: 1_700_000_000 } }),
        // Its parent comes later in the input: imported right after it, linked.
        session("child", 3, { session: { id: "child", source: "import", parentSessionId: "parent" } }),
        session("bad", 4, {
          messages: [
            { role: "user", content: "fine" },
            { role: "wizard" as never, content: "no" },
          ],
        }),
        "not a session",
        session("stored", 2),
        session("empty", 2, {
          session: { id: "empty", source: "import", title: "from the import", cwd: "/filled" },
        }),
        session("orphan", 1, { session: { id: "orphan", source: "import", parentSessionId: "nowhere" } }),
        session("parent", 5),
      ];
      const progress: ImportSessionsProgress[] = [];
      const { result, appended } = await whileAppending(other, "live", () =>
        store.importSessions(items as ImportSessionInput[], { onProgress: (p) => progress.push(p) }),
      );
      const { durationMs, failed, ...counts } = result;
      assert.ok(durationMs >= 0);
      assert.deepEqual(counts, {
        imported: 5,
        messages: 300 + 3 + 2 + 1 + 5,
        resumed: 1,
        skipped: ["stored"],
        unlinked: ["orphan"],
      });
      assert.deepEqual(
        failed.map((x) => ({
          index: x.index,
          sessionId: x.sessionId,
          code: x.error.code,
          field: x.error.field,
        })),
        [
          { index: 2, sessionId: "bad", code: "INVALID_INPUT", field: "messages[1].role" },
          { index: 3, sessionId: undefined, code: "INVALID_INPUT", field: "item" },
        ],
      );
      // The first step is small (200 messages): the 300-message session is a step of its own.
      assert.ok(progress.length >= 2, `one step only (${progress.length}): the import was not paced`);
      assert.deepEqual(progress[0], { sessions: 1, messages: 300, done: false });
      assert.deepEqual(progress.at(-1), { sessions: 8, messages: 300 + 3 + 2 + 2 + 2 + 1 + 5, done: true });
      assert.equal(progress.filter((p) => p.done).length, 1);
      await other.close();

      const big = await store.getSession("big");
      assert.equal(big?.messageCount, 300);
      assert.equal(big?.title, "title big");
      assert.deepEqual(
        [big?.archived, big?.pinned, big?.endedAt, big?.endReason],
        [true, true, 1_700_000_000, "done"],
      );
      assert.equal((await store.getSession("child"))?.parentSessionId, "parent");
      assert.equal((await store.getSession("orphan"))?.parentSessionId, null);
      assert.equal(await store.getSession("bad"), undefined);
      assert.equal(await store.messageCount("stored"), 1);
      // Filled in: its stored values kept, the messages added.
      const empty = await store.getSession("empty");
      assert.deepEqual([empty?.title, empty?.cwd], ["kept", "/filled"]);
      assert.equal(await store.messageCount("empty"), 2);
      assert.equal(await store.messageCount("live"), appended);
      const last = await store.getMessages("big", { last: 1 });
      assert.equal(last[0]?.content, "big walrus row 299");
      const hits = (await store.search("walrus", { limit: 500 })).hits;
      assert.deepEqual([...new Set(hits.map((h) => h.sessionId))].sort(), [
        "big",
        "child",
        "empty",
        "orphan",
        "parent",
      ]);
      assert.deepEqual(await store.checkIntegrity(), { ok: true, problems: [] });

      // Again: everything is there already, nothing changes.
      const again = await store.importSessions(
        items.filter((x) => typeof x !== "string") as ImportSessionInput[],
      );
      assert.equal(again.imported, 0);
      assert.deepEqual(again.skipped, ["big", "child", "stored", "empty", "orphan", "parent"]);
      assert.equal(await store.messageCount(), 300 + 3 + 1 + 2 + 1 + 5 + appended);
      const { durationMs: _, ...nothing } = await store.importSessions([]);
      assert.deepEqual(nothing, {
        imported: 0,
        messages: 0,
        resumed: 0,
        skipped: [],
        unlinked: [],
        failed: [],
      });
      await store.close();
    });

    test("parents: a chain given children first, a parent that fails, a cycle", async (f) => {
      const store = await f.open();
      const child = (id: string, parent: string, rows = 1) =>
        session(id, rows, { session: { id, source: "import", parentSessionId: parent } });
      const refused = { session: { id: "refused", source: "" } } as ImportSessionInput;
      const result = await store.importSessions([
        child("grandchild", "middle"),
        child("middle", "root"),
        session("root", 2),
        // The parent fails before its child in the same step, and after it.
        refused,
        child("after", "refused"),
        child("before", "refused-later"),
        { session: { id: "refused-later", source: "" } } as ImportSessionInput,
        // Each the other's parent: neither comes first, so one goes without its parent.
        child("x", "y"),
        child("y", "x"),
      ]);
      assert.deepEqual(
        result.failed.map((x) => x.sessionId),
        ["refused", "refused-later"],
      );
      assert.deepEqual([...result.unlinked].sort(), ["after", "before", "x"]);
      assert.equal(result.imported, 7);
      const parentOf = async (id: string) => (await store.getSession(id))?.parentSessionId;
      assert.deepEqual(
        await Promise.all(["grandchild", "middle", "root", "after", "before", "x", "y"].map(parentOf)),
        ["middle", "root", null, null, null, null, "x"],
      );
      await store.close();
    });

    test("a long chain given children first goes in a few steps, each session linked to its parent", async (f) => {
      const store = await f.open();
      // Newest first, as a list of sessions comes: session i is the parent of session i + 1.
      const chain = 300;
      const items = Array.from({ length: chain }, (_, k) => {
        const i = chain - 1 - k;
        return session(`c${i}`, 1, {
          session: { id: `c${i}`, source: "import", ...(i > 0 ? { parentSessionId: `c${i - 1}` } : {}) },
        });
      });
      let steps = 0;
      const result = await store.importSessions(items, { onProgress: () => steps++ });
      assert.equal(result.imported, chain);
      assert.deepEqual(result.unlinked, []);
      // One step per generation would be 301 steps, each with its pause. How many sessions a step
      // takes follows how long steps take (paced: 13 steps over HTTP, 2 in process), so the bound
      // is loose.
      assert.ok(steps <= chain / 3, `${steps} steps`);
      for (const i of [1, 150, chain - 1])
        assert.equal((await store.getSession(`c${i}`))?.parentSessionId, `c${i - 1}`);
      await store.close();
    });

    test("a cycle of parents with a child outside it: one session of the cycle goes unlinked, every other link is kept", async (f) => {
      const store = await f.open();
      const item = (id: string, parent: string, rows: number) =>
        session(id, rows, { session: { id, source: "import", parentSessionId: parent } });
      /** Import `items` (id, parent, rows): all of them, one of `cycle` unlinked, `kept` linked. */
      const importCycle = async (items: Array<[string, string, number]>, cycle: string[], kept: string[]) => {
        const result = await store.importSessions(items.map(([id, parent, rows]) => item(id, parent, rows)));
        assert.equal(result.imported, items.length);
        assert.equal(result.unlinked.length, 1);
        assert.ok(cycle.includes(result.unlinked[0] as string), result.unlinked.join());
        for (const id of kept) {
          const parent = items.find(([given]) => given === id)?.[1];
          assert.equal((await store.getSession(id))?.parentSessionId, parent, id);
        }
      };
      // Sizes that put a cycle member and its child in different steps.
      await importCycle(
        [
          ["n7", "n24", 0],
          ["n4", "n7", 108],
          ["n24", "n4", 142],
          ["n22", "n7", 1],
        ],
        ["n7", "n4", "n24"],
        ["n22"],
      );
      // A chain hanging from a cycle, given first: the chain keeps its links.
      await importCycle(
        [
          ["d", "c", 1],
          ["c", "a", 1],
          ["a", "b", 1],
          ["b", "a", 1],
        ],
        ["a", "b"],
        ["c", "d"],
      );
      await store.close();
    });

    test("steps are sized by text as well as by messages: large tool outputs go a few sessions at a time", async (f) => {
      const store = await f.open();
      // Three messages in all, far below a step's message count, but 9 Mi characters: a step
      // holds at most 8 Mi besides its first session, so the third session is a step of its own
      // (read ahead and written with the first two, the import would hold all of it at once).
      const output = (n: number) => `${n}`.padEnd(3 * 1024 * 1024, "x");
      const items = [1, 2, 3].map((n) => ({
        session: { id: `big-${n}`, source: "import" },
        messages: [{ role: "tool" as const, toolName: "shell", toolCallId: `c${n}`, content: output(n) }],
      }));
      const progress: ImportSessionsProgress[] = [];
      const result = await store.importSessions(items, { onProgress: (p) => progress.push(p) });
      assert.equal(result.imported, 3);
      // The text bound: the first step holds two sessions at most (one, if a slow machine has
      // shrunk the steps' message count too). The import then reports each step; a step that
      // ends before the input is known to be exhausted reports done: false, and the next (empty)
      // step done: true — so the counts only grow, and the last report is the whole import.
      const first = progress[0];
      assert.ok(first !== undefined && first.sessions <= 2 && !first.done, JSON.stringify(progress));
      assert.deepEqual(progress.at(-1), { sessions: 3, messages: 3, done: true });
      for (let i = 1; i < progress.length; i++) {
        const [before, after] = [progress[i - 1], progress[i]] as [
          ImportSessionsProgress,
          ImportSessionsProgress,
        ];
        assert.ok(
          after.sessions >= before.sessions && after.messages === after.sessions,
          JSON.stringify(progress),
        );
      }
      assert.equal((await store.getMessages("big-3"))[0]?.content, output(3));
      await store.close();
    });

    test("a store's own sessions and messages, as they read back (nulls and all), import as they are", async (f) => {
      const store = await f.open();
      await store.createSession({
        id: "root",
        source: "cli",
        model: "m-1",
        modelConfig: { temperature: 0.2 },
        title: "the root",
        cwd: "/work",
        metadata: { team: "a" },
        startedAt: 1_700_000_000,
      });
      await store.createSession({
        id: "child",
        source: "cli",
        parentSessionId: "root",
        startedAt: 1_700_000_100,
      });
      await store.appendMessages("root", [
        { role: "user", content: "deploy it", timestamp: 1_700_000_001 },
        {
          role: "assistant",
          content: [{ type: "text", text: "on it" }],
          toolCalls: [{ id: "c1", name: "shell" }],
          tokenCount: 12,
          finishReason: "tool_calls",
          reasoning: "because",
          metadata: { k: 1 },
          timestamp: 1_700_000_002,
        },
        { role: "tool", content: "ok", toolName: "shell", toolCallId: "c1", timestamp: 1_700_000_003 },
      ]);
      await store.appendMessage("child", {
        role: "user",
        content: "and the child",
        timestamp: 1_700_000_101,
      });
      await store.updateSession("root", { archived: true, pinned: true });
      await store.endSession("root", "done", { at: 1_700_000_010 });

      const copy = (id: string | null) => (id === null ? null : `copy-${id}`);
      const items: ImportSessionInput[] = [];
      for (const id of ["child", "root"]) {
        const s = await store.getSession(id);
        assert.ok(s);
        items.push({
          session: { ...s, id: `copy-${s.id}`, parentSessionId: copy(s.parentSessionId) },
          messages: await store.getMessages(id),
          archived: s.archived,
          pinned: s.pinned,
          ...(s.endedAt === null ? {} : { ended: { reason: s.endReason as string, at: s.endedAt } }),
        });
      }
      const result = await store.importSessions(items);
      assert.deepEqual([result.imported, result.failed, result.unlinked], [2, [], []]);
      for (const id of ["root", "child"]) {
        const { id: _a, parentSessionId: parentA, ...was } = (await store.getSession(id)) ?? {};
        const { id: _b, parentSessionId: parentB, ...is } = (await store.getSession(`copy-${id}`)) ?? {};
        assert.deepEqual(is, was);
        assert.equal(parentB, copy(parentA ?? null));
        const strip = (m: { id: number; sessionId: string }) => ({ ...m, id: 0, sessionId: "" });
        assert.deepEqual(
          (await store.getMessages(`copy-${id}`)).map(strip),
          (await store.getMessages(id)).map(strip),
        );
      }
      await store.close();
    });

    test("reads an async input one item at a time; an abort or a failing input keeps what was committed, whole", async (f) => {
      const store = await f.open();
      const sizes = { a: 150, b: 150, c: 150 };
      let released = false;
      async function* source(ids: string[], fail = false) {
        try {
          for (const id of ids) {
            await new Promise((resolve) => setTimeout(resolve, 1));
            yield session(id, 150);
          }
          if (fail) throw new Error("the input broke");
        } finally {
          released = true;
        }
      }
      // Larger than the first step's chunk together (200 messages): a step each.
      const stop = new AbortController();
      await assert.rejects(
        store.importSessions(source(["a", "b", "c"]), {
          signal: stop.signal,
          onProgress: () => stop.abort(),
        }),
        (error: Error) => error.name === "AbortError",
      );
      assert.ok(released, "the input was not let go after the abort");
      assert.deepEqual(await wholeOrAbsent(store, sizes), ["a"]);

      released = false;
      const all = await store.importSessions(source(["a", "b", "c"]));
      assert.deepEqual([all.imported, all.skipped], [2, ["a"]]);
      assert.ok(released);

      // The first step (d) commits before the input is read past the next item; e may or may not.
      await assert.rejects(store.importSessions(source(["d", "e"], true)), /the input broke/);
      assert.deepEqual((await wholeOrAbsent(store, { ...sizes, d: 150, e: 150 })).slice(0, 4), [
        "a",
        "b",
        "c",
        "d",
      ]);
      assert.deepEqual(await store.checkIntegrity(), { ok: true, problems: [] });
      await store.close();
    });

    test("a slow input gets what it gave written; an abort while it works on an item stops at once", async (f) => {
      const store = await f.open();
      const stop = new AbortController();
      let returned = false;
      let read = 0;
      // Hands over one session, then another once the first is stored (so the import wrote it
      // without waiting for a full step), then never answers again; it is aborted once the
      // second is stored too.
      const input: AsyncIterable<ImportSessionInput> = {
        [Symbol.asyncIterator]: () => ({
          async next() {
            read++;
            if (read === 1) return { value: session("first", 2), done: false };
            if (read === 2) {
              while ((await store.getSession("first")) === undefined)
                await new Promise((resolve) => setTimeout(resolve, 10));
              return { value: session("second", 2), done: false };
            }
            // Stuck: the second is written all the same, and the abort then ends the wait.
            const stuck = new Promise<never>(() => {});
            const abortOnceStored = async () => {
              while ((await store.getSession("second")) === undefined)
                await new Promise((resolve) => setTimeout(resolve, 10));
              stop.abort();
            };
            void abortOnceStored();
            return stuck;
          },
          async return() {
            returned = true;
            return { value: undefined, done: true };
          },
        }),
      };
      await assert.rejects(store.importSessions(input, { signal: stop.signal }), (error: Error) => {
        assert.equal(error.name, "AbortError");
        return true;
      });
      assert.deepEqual(await wholeOrAbsent(store, { first: 2, second: 2 }), ["first", "second"]);
      assert.equal(read, 3);
      assert.ok(returned, "the input was not told to stop");
      await store.close();
    });

    test("bad input, a read-only store and a transaction are refused with nothing changed", async (f) => {
      const store = await f.open();
      const calls: Array<() => Promise<unknown>> = [
        () => store.importSessions(undefined as never),
        () => store.importSessions(5 as never),
        () => store.importSessions("sessions" as never),
        () => store.importSessions({} as never),
        () => store.importSessions([session("s", 1)], 5 as never),
        () => store.importSessions([session("s", 1)], { onProgress: 5 } as never),
        () => store.importSessions([session("s", 1)], { signal: {} } as never),
      ];
      await rejectsEach(calls, "importSessions", "INVALID_INPUT");
      await refusesInTransactionAndAborted(store, (s, signal) =>
        s.importSessions([session("s", 1)], { signal }),
      );
      // Each item's own problems are reported, not thrown: the store refuses the values.
      const refused = await store.importSessions([
        { session: { source: "no id" } } as never,
        { session: { id: "", source: "x" } },
        { session: { id: "x" } } as never,
        { session: { id: "y", source: "x" }, messages: "many" as never },
        { session: { id: "z", source: "x" }, ended: { reason: 5 as never } },
        { session: { id: "w", source: "x", parentSessionId: "w" } },
        {
          session: { id: "v", source: "x" },
          messages: [{ role: "user", content: "ok" }],
          pinned: "yes" as never,
        },
      ]);
      assert.deepEqual(
        refused.failed.map((x) => [x.index, x.sessionId, x.error.field]),
        [
          [0, undefined, "id"],
          [1, "", "id"],
          [2, "x", "source"],
          [3, "y", "messages"],
          [4, "z", "reason"],
          [5, "w", "parentSessionId"],
          [6, "v", "pinned"],
        ],
      );
      assert.equal(refused.imported, 0);
      // An item whose getter throws is refused alone; an iterator that breaks the protocol ends
      // the import with INVALID_INPUT.
      const getter = await store.importSessions([
        {
          get session(): never {
            throw new Error("no session here");
          },
        } as never,
      ]);
      assert.deepEqual(
        getter.failed.map((x) => [x.index, x.error.field]),
        [[0, "session"]],
      );
      await throwsCode(
        () => store.importSessions({ [Symbol.iterator]: () => ({ next: () => 5 }) } as never),
        "INVALID_INPUT",
      );
      assert.equal(await store.messageCount(), 0);
      assert.deepEqual((await store.listSessions()).length, 0);
      await store.close();
      const reader = await f.open({ readOnly: true });
      await throwsCode(() => reader.importSessions([session("s", 1)]), "STORE_READONLY");
      assert.equal(await reader.getSession("s"), undefined);
    });
  });
}
