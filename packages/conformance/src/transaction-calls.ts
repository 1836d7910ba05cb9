/**
 * Conformance: `store.transaction(fn)` when calls overlap — transactions started together, calls
 * `fn` starts together on the store it receives, a call on the store itself from inside `fn` —
 * and what `close()` does to the calls in flight. On a sync store every call inside `fn` runs to
 * its end before the next starts (the body cannot await), so these hold by construction there;
 * an async store must give the same results while its calls really do overlap.
 */
import {
  assert,
  type ConformanceStore,
  type ConformanceTarget,
  fixtureTest,
  isAsyncTarget,
  throwsCode,
  transact,
} from "./harness.js";

const text = (content: string) => ({ role: "user" as const, content });

/** `promise`, or a failure naming `what` when it has not settled after `ms` (a deadlock must fail
 * the test, not hang it). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} had not settled after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How `call` ended, whether it threw, returned a value or returned a promise. */
function settle(call: () => unknown): Promise<PromiseSettledResult<unknown>> {
  try {
    return Promise.allSettled([call()]).then(([outcome]) => outcome as PromiseSettledResult<unknown>);
  } catch (reason) {
    return Promise.resolve({ status: "rejected", reason });
  }
}

/** Start every call before any is awaited, as `Promise.allSettled` would, and return how each
 * ended. Inside a sync transaction body (calls that return values) the outcomes come back at once,
 * since that body cannot return a promise. */
function together(
  calls: ReadonlyArray<() => unknown>,
): PromiseSettledResult<unknown>[] | Promise<PromiseSettledResult<unknown>[]> {
  const started = calls.map((call): PromiseSettledResult<unknown> | PromiseLike<unknown> => {
    try {
      const value = call();
      return isThenable(value) ? value : { status: "fulfilled", value };
    } catch (reason) {
      return { status: "rejected", reason };
    }
  });
  if (!started.some(isThenable)) return started as PromiseSettledResult<unknown>[];
  return Promise.all(
    started.map((outcome) => (isThenable(outcome) ? settle(() => outcome) : Promise.resolve(outcome))),
  );
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

const codeOf = (outcome: PromiseSettledResult<unknown> | undefined) =>
  outcome?.status === "rejected" ? (outcome.reason as { code?: string }).code : undefined;

async function contents(store: ConformanceStore, id: string): Promise<string[]> {
  return (await store.getMessages(id)).map((m) => String(m.content));
}

/** A session at a time, one event-loop turn apart: an import that is still reading its input
 * when the test closes the store. */
async function* slowly(count: number) {
  for (let i = 0; i < count; i++) {
    await sleep(1);
    yield { session: { id: `imported-${i}`, source: "import" }, messages: [text("a"), text("b"), text("c")] };
  }
}

export function transactionCallsSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);
  const isAsync = isAsyncTarget(target);

  describe("store.transaction: overlapping calls, close with calls in flight", () => {
    test("transactions started together each commit whole or roll back whole, one after another", async ({
      open,
    }) => {
      const store = await open();
      await store.createSession({ id: "s1", source: "cli" });
      const failure = new Error("the third one fails");
      const outcomes = await Promise.all(
        [0, 1, 2, 3].map((n) =>
          settle(() =>
            transact(target, store, function* (tx) {
              yield tx.appendMessage("s1", text(`T${n}.1`));
              yield tx.recordUsage("s1", { model: "m", inputTokens: 1 });
              yield tx.appendMessage("s1", text(`T${n}.2`));
              if (n === 2) throw failure;
              return n;
            }),
          ),
        ),
      );
      assert.deepEqual(outcomes, [
        { status: "fulfilled", value: 0 },
        { status: "fulfilled", value: 1 },
        { status: "rejected", reason: failure },
        { status: "fulfilled", value: 3 },
      ]);
      // Each transaction's two messages are next to each other: no two bodies interleaved.
      const stored = await contents(store, "s1");
      assert.equal(stored.length, 6, stored.join());
      for (let i = 0; i < stored.length; i += 2) {
        assert.equal(stored[i + 1], (stored[i] as string).replace(".1", ".2"), stored.join());
      }
      assert.ok(!stored.some((content) => content.startsWith("T2")));
      const session = await store.getSession("s1");
      assert.equal(session?.messageCount, 6);
      assert.equal(session?.inputTokens, 3);
      assert.equal((await store.checkIntegrity()).ok, true);
    });

    test("calls started together on tx each stay all-or-nothing; the failed one undoes only itself", async ({
      open,
    }) => {
      const store = await open();
      await store.createSession({ id: "s1", source: "cli" });
      const outcomes = (await store.transaction((tx: ConformanceStore) =>
        together([
          () => tx.appendMessages("s1", [text("B1"), text("B2"), text("B3")]),
          () => tx.appendMessage("missing", text("x")),
          () => tx.recordUsage("s1", { model: "m", inputTokens: 7 }),
          () => tx.appendMessage("s1", text("B4")),
        ]),
      )) as PromiseSettledResult<unknown>[];
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ["fulfilled", "rejected", "fulfilled", "fulfilled"],
      );
      assert.equal(codeOf(outcomes[1]), "SESSION_NOT_FOUND");
      assert.deepEqual(await contents(store, "s1"), ["B1", "B2", "B3", "B4"]);
      const session = await store.getSession("s1");
      assert.equal(session?.messageCount, 4);
      assert.equal(session?.inputTokens, 7);
      assert.equal(await store.messageCount("s1"), 4);
      assert.equal(await store.getSession("missing"), undefined);
      assert.equal((await store.checkIntegrity()).ok, true);
    });

    test("nested transactions started together: the one that throws undoes only its own calls", async ({
      open,
    }) => {
      const store = await open();
      await store.createSession({ id: "s1", source: "cli" });
      const failure = new Error("inner abort");
      const outcomes = (await store.transaction((tx: ConformanceStore) =>
        together([
          () =>
            transact(target, tx, function* (inner) {
              yield inner.appendMessage("s1", text("N1"));
              yield inner.appendMessage("s1", text("N2"));
              return "kept";
            }),
          () =>
            transact(target, tx, function* (inner) {
              yield inner.appendMessage("s1", text("M1"));
              throw failure;
            }),
        ]),
      )) as PromiseSettledResult<unknown>[];
      assert.deepEqual(outcomes[0], { status: "fulfilled", value: "kept" });
      assert.deepEqual(outcomes[1], { status: "rejected", reason: failure });
      assert.deepEqual(await contents(store, "s1"), ["N1", "N2"]);
      assert.equal((await store.getSession("s1"))?.messageCount, 2);
    });

    test("a call fn started and did not await is part of the transaction", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s1", source: "cli" });
      let notAwaited: unknown;
      let kept: ConformanceStore | undefined;
      await transact(target, store, function* (tx) {
        kept = tx;
        yield tx.appendMessage("s1", text("awaited"));
        notAwaited = tx.appendMessage("s1", text("not awaited"));
      });
      assert.equal(typeof (await notAwaited), "number");
      assert.deepEqual(await contents(store, "s1"), ["awaited", "not awaited"]);
      assert.equal((await store.getSession("s1"))?.messageCount, 2);
      // Afterwards the store fn received is the sync store itself (it goes on working); an async
      // store's belongs to the transaction that ended, and refuses.
      if (isAsync) {
        await throwsCode(() => kept?.appendMessage("s1", text("late")), "STORE_CLOSED");
        assert.equal(await store.messageCount("s1"), 2);
      } else {
        assert.equal(kept, store);
      }
    });

    test("a call on the store itself inside its transaction joins it (as on the store fn receives)", async ({
      open,
    }) => {
      const store = await open();
      await store.createSession({ id: "s1", source: "cli" });
      // Rolled back with the transaction: it was part of it, not stored outside it.
      const failure = new Error("rolled back");
      const thrown = await within(
        settle(() =>
          transact(target, store, function* (tx) {
            yield tx.appendMessage("s1", text("via tx"));
            yield store.appendMessage("s1", text("via store"));
            throw failure;
          }),
        ),
        10_000,
        "a transaction whose body calls the store itself",
      );
      assert.deepEqual(thrown, { status: "rejected", reason: failure });
      assert.deepEqual(await contents(store, "s1"), []);
      // Committed with it, in call order, and read inside it (the transaction's own writes).
      const seen = await within(
        Promise.resolve(
          transact(target, store, function* (tx) {
            yield store.appendMessage("s1", text("one"));
            yield tx.appendMessage("s1", text("two"));
            return (yield store.getMessages("s1")) as { content: unknown }[];
          }),
        ),
        10_000,
        "a transaction whose body reads through the store itself",
      );
      assert.deepEqual(
        seen.map((m) => m.content),
        ["one", "two"],
      );
      // In a nested transaction, a call on the outer transaction's store joins the inner one: the
      // inner rolling back undoes it, and the outer commits the rest.
      await transact(target, store, function* (tx) {
        yield tx.appendMessage("s1", text("outer"));
        const [inner] = yield together([
          () =>
            transact(target, tx, function* (innerTx) {
              yield innerTx.appendMessage("s1", text("inner"));
              yield tx.appendMessage("s1", text("inner via outer"));
              throw failure;
            }),
        ]);
        assert.deepEqual(inner, { status: "rejected", reason: failure });
        // close() from inside is refused as on `tx`: it cannot run inside a transaction.
        const [closing] = yield together([() => store.close()]);
        assert.equal(codeOf(closing), "INVALID_INPUT");
      });
      assert.deepEqual(await contents(store, "s1"), ["one", "two", "outer"]);
      // Once the transaction ended, a callback it left behind reaches the store as usual.
      let later: Promise<unknown> | undefined;
      await transact(target, store, function* () {
        later = sleep(20).then(() => store.appendMessage("s1", text("after")));
      });
      await later;
      assert.deepEqual(await contents(store, "s1"), ["one", "two", "outer", "after"]);
      assert.equal((await store.getSession("s1"))?.messageCount, 4);
    });

    test("close with calls in flight: each call completes or is STORE_CLOSED, and what completed is stored", async ({
      open,
    }) => {
      const store = await open();
      await store.createSession({ id: "s1", source: "cli" });
      const appends = Array.from({ length: 10 }, (_, i) =>
        settle(() => store.appendMessage("s1", text(`m${i}`))),
      );
      const imported = settle(() => store.importSessions(slowly(50)));
      // An async store's transaction whose body is between two calls when close() comes.
      let started: () => void = () => undefined;
      const bodyStarted = new Promise<void>((resolve) => {
        started = resolve;
      });
      const transaction = isAsync
        ? settle(() =>
            store.transaction(async (tx: ConformanceStore) => {
              await tx.appendMessage("s1", text("tx1"));
              started();
              await sleep(100);
              await tx.appendMessage("s1", text("tx2"));
            }),
          )
        : undefined;
      if (isAsync) await bodyStarted;
      else await sleep(5);
      const closed = settle(() => store.close());
      await throwsCode(() => store.getSession("s1"), "STORE_CLOSED");
      assert.deepEqual(await within(closed, 20_000, "close()"), { status: "fulfilled", value: undefined });
      const outcomes = await Promise.all([...appends, imported, ...(transaction ? [transaction] : [])]);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected")
          assert.equal(codeOf(outcome), "STORE_CLOSED", String(outcome.reason));
      }
      // The import was reading its input when the store closed: it stopped there.
      assert.equal(codeOf(await imported), "STORE_CLOSED");
      // The transaction's second call came after close: refused, so the whole body rolled back.
      if (transaction) assert.equal(codeOf(await transaction), "STORE_CLOSED");
      const reopened = await open();
      const stored = await contents(reopened, "s1");
      assert.equal(stored.length, outcomes.slice(0, 10).filter((o) => o.status === "fulfilled").length);
      assert.ok(!stored.includes("tx1"));
      for (const session of await reopened.listSessions({ source: "import" })) {
        assert.equal(session.messageCount, 3, session.id);
      }
      assert.equal(await store.close(), undefined);
    });
  });
}
