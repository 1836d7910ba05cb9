/**
 * Conformance: every value a store accepts reads back identical on every driver — text holding
 * NUL, counters at the edge of the exact integer range (and past it, planted by another writer),
 * JSON with `__proto__` keys — and input whose getters throw is refused with nothing stored.
 */
import { type Json, LIMITS } from "@sessiondb/core";
import {
  assert,
  type ConformanceStore,
  type ConformanceTarget,
  type Fixture,
  fixtureTest,
  throwsCode,
} from "./harness.js";

const { MAX_COST_USD, MAX_EPOCH_SECONDS } = LIMITS;

const NUL = "nulA\u0000nulB tail";
const nul = (label: string) => `${label}\u0000${label} after the NUL`;
// toolCallId starts with a byte-order mark: a binding that hands NUL-holding text over as bytes
// must not lose it when decoding them.
const MAX = Number.MAX_SAFE_INTEGER;
/** Past 2^53: the nearest double is 2^53 (ties to even), what every driver must read. */
const PLANTED = "9007199254740993";
const INT64_MAX = "9223372036854775807";

/** Several objects as JSON.parse builds them: `__proto__` is an own key, at the top and nested. */
const protoObject = (): { [key: string]: Json } =>
  JSON.parse('{"__proto__": {"x": 1, "__proto__": [1, "two"]}, "a": {"__proto__": null}, "n": 2}');

function assertProtoKeys(value: unknown, where: string): void {
  const top = value as Record<string, Record<string, unknown>>;
  assert.ok(Object.hasOwn(top, "__proto__"), `${where}: top-level __proto__ key lost`);
  assert.equal(Object.getPrototypeOf(top), Object.prototype, `${where}: prototype changed`);
  const nested = Object.getOwnPropertyDescriptor(top, "__proto__")?.value as object;
  assert.ok(Object.hasOwn(nested, "__proto__"), `${where}: nested __proto__ key lost`);
  assert.ok(Object.hasOwn(top.a as object, "__proto__"), `${where}: nested __proto__: null lost`);
}

/** An object whose `bad` getter throws a plain Error. */
function throwing<T extends object>(base: T): T {
  return Object.defineProperty({ ...base }, "bad", {
    enumerable: true,
    get() {
      throw new Error("getter exploded");
    },
  });
}

export function valuesSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);

  describe("values read back identical", () => {
    test("NUL in every stored text field round-trips byte for byte", async ({ open }) => {
      const store = await open();
      const created = await store.createSession({
        id: "s",
        source: nul("source"),
        model: nul("model"),
        title: nul("title"),
        cwd: nul("/cwd"),
        metadata: { [nul("key")]: nul("value") },
        modelConfig: { temperature: nul("t") },
      });
      await store.createSession({ id: "parent", source: "cli" });
      const ended = await store.endSession("s", nul("reason"));
      const user = await store.appendMessage("s", { role: "user", content: NUL, metadata: { m: nul("m") } });
      const tool = await store.appendMessage("s", {
        role: "tool",
        content: nul("tool output"),
        toolName: nul("tool"),
        toolCallId: `\uFEFF${nul("call")}`,
      });
      const assistant = await store.appendMessage("s", {
        role: "assistant",
        content: [{ type: "text", text: nul("part") }],
        toolCalls: [{ id: nul("c"), type: "function", function: { name: "f", arguments: nul("{}") } }],
        finishReason: nul("stop"),
        reasoning: nul("reasoning"),
      });
      await store.recordUsage("s", {
        model: nul("usage model"),
        provider: nul("provider"),
        baseUrl: nul("https://x"),
        billingMode: nul("billing"),
        task: nul("task"),
        inputTokens: 1,
      });

      const session = await store.getSession("s");
      assert.equal(session?.source, nul("source"));
      assert.equal(session?.model, nul("model"));
      assert.equal(session?.title, nul("title"));
      assert.equal(session?.cwd, nul("/cwd"));
      assert.equal(session?.endReason, nul("reason"));
      assert.deepEqual(session?.metadata, { [nul("key")]: nul("value") });
      assert.deepEqual(session?.modelConfig, { temperature: nul("t") });
      assert.equal(created.title, nul("title"), "createSession's own read");
      assert.equal(ended.endReason, nul("reason"), "endSession's own read");

      const summary = (await store.listSessions()).find((s) => s.id === "s");
      assert.equal(summary?.title, nul("title"));
      assert.equal(summary?.source, nul("source"));
      assert.equal(summary?.preview, NUL, "preview of the first user message");

      const [u, t, a] = await store.getMessages("s");
      assert.equal(u?.id, user);
      assert.equal(u?.content, NUL);
      assert.deepEqual(u?.metadata, { m: nul("m") });
      assert.equal(t?.id, tool);
      assert.equal(t?.content, nul("tool output"));
      assert.equal(t?.toolName, nul("tool"));
      assert.equal(t?.toolCallId, `\uFEFF${nul("call")}`);
      assert.equal(a?.id, assistant);
      assert.deepEqual(a?.content, [{ type: "text", text: nul("part") }]);
      assert.deepEqual(a?.toolCalls, [
        { id: nul("c"), type: "function", function: { name: "f", arguments: nul("{}") } },
      ]);
      assert.equal(a?.finishReason, nul("stop"));
      assert.equal(a?.reasoning, nul("reasoning"));

      const [usage] = await store.getUsage("s");
      assert.equal(usage?.model, nul("usage model"));
      assert.equal(usage?.provider, nul("provider"));
      assert.equal(usage?.baseUrl, nul("https://x"));
      assert.equal(usage?.billingMode, nul("billing"));
      assert.equal(usage?.task, nul("task"));

      const hit = (await store.search("output", { roles: ["tool"] })).hits.find((h) => h.messageId === tool);
      assert.ok(hit, "the tool row is found by a word after the NUL");
      assert.equal(hit.toolName, nul("tool"));
      assert.equal(hit.sessionId, "s");
    });

    test("text without NUL, and invalid UTF-8 planted by another writer, read the same as before", async ({
      open,
      raw,
    }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli", title: "plain ✓ 漢字 😀" });
      await store.appendMessage("s", { role: "user", content: "" });
      const bad = await store.appendMessage("s", { role: "user", content: "placeholder" });
      raw().exec(`UPDATE messages SET content = CAST(x'61ff62' AS TEXT) WHERE id = ${bad}`);
      assert.equal((await store.getSession("s"))?.title, "plain ✓ 漢字 😀");
      const [empty, invalid] = await store.getMessages("s");
      assert.equal(empty?.content, "");
      assert.equal(typeof invalid?.content, "string");
      assert.match(
        invalid?.content as string,
        /^a\uFFFD+b$/,
        "invalid UTF-8 reads with replacement characters",
      );
    });
  });

  describe("text holding NUL that another program writes", () => {
    /** A store at `name` that has read its clean text back through every read, and a raw
     * connection of another "program" on its file. */
    async function cleanStore(
      f: { open: Fixture["open"]; raw: Fixture["raw"]; file: Fixture["file"] },
      name: string,
    ) {
      const path = f.file(name);
      const store = await f.open(undefined, path);
      await store.createSession({ id: "s", source: "cli", title: "clean" });
      const id = await store.appendMessage("s", { role: "user", content: "clean" });
      await store.recordUsage("s", { model: "m", inputTokens: 1 });
      assert.equal((await store.getSession("s"))?.title, "clean");
      assert.equal((await store.getMessages("s", { last: 5 }))[0]?.content, "clean");
      assert.equal((await store.getUsage("s"))[0]?.model, "m");
      assert.equal((await store.listSessions())[0]?.title, "clean");
      return { store, other: f.raw(path), id };
    }
    const NUL_SQL = "'x' || char(0) || 'y'";
    const X_NUL_Y = "x\u0000y";

    // Each table and kind of write on a store of its own: the first such value changes how the
    // store reads from then on.
    test("inserted or updated in messages, sessions or usage after the store read clean text, it reads whole", async (f) => {
      const cases: Array<[string, (id: number) => string, (store: ConformanceStore) => Promise<unknown>]> = [
        [
          "messages insert",
          () =>
            `INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', 'user', ${NUL_SQL}, 2)`,
          async (store) => (await store.getMessages("s", { last: 1 }))[0]?.content,
        ],
        [
          "messages update",
          (id) => `UPDATE messages SET content = ${NUL_SQL} WHERE id = ${id}`,
          async (store) => (await store.getMessages("s"))[0]?.content,
        ],
        [
          "sessions insert",
          () => `INSERT INTO sessions (id, source, title, started_at) VALUES ('t', 'cli', ${NUL_SQL}, 2)`,
          async (store) => (await store.getSession("t"))?.title,
        ],
        [
          "sessions update",
          () => `UPDATE sessions SET title = ${NUL_SQL} WHERE id = 's'`,
          async (store) => (await store.listSessions())[0]?.title,
        ],
        [
          "usage insert",
          () => `INSERT INTO session_model_usage (session_id, model) VALUES ('s', ${NUL_SQL})`,
          async (store) => (await store.getUsage("s")).find((row) => row.model !== "m")?.model,
        ],
        [
          "usage update",
          () => `UPDATE session_model_usage SET provider = ${NUL_SQL}`,
          async (store) => (await store.getUsage("s"))[0]?.provider,
        ],
      ];
      for (const [name, write, read] of cases) {
        const { store, other, id } = await cleanStore(f, `${name.replace(" ", "-")}.db`);
        other.exec(write(id));
        assert.equal(await read(store), X_NUL_Y, name);
      }
    });

    test("in a store that predates the triggers that watch for it, it reads whole", async (f) => {
      const { store, other } = await cleanStore(f, "old.db");
      // What a store created before them looks like: no triggers, no mark.
      const triggers = other
        .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sessiondb_text_nul_%'")
        .all()
        .map((row) => String(row.name));
      assert.equal(triggers.length, 6);
      other.exec(`BEGIN IMMEDIATE; ${triggers.map((name) => `DROP TRIGGER "${name}";`).join(" ")}
        DELETE FROM state_meta WHERE key = 'text_without_nul';
        UPDATE messages SET content = ${NUL_SQL}; COMMIT`);
      await store.close();
      const reopened = await f.open(undefined, f.file("old.db"));
      assert.equal((await reopened.getMessages("s"))[0]?.content, X_NUL_Y);
    });
  });

  describe("usage sums stay in the exact range", () => {
    const snapshot = async (store: ConformanceStore) => ({
      session: await store.getSession("s"),
      usage: await store.getUsage("s"),
    });

    test("MAX_SAFE_INTEGER is reached exactly; one more is refused and nothing changes", async ({ open }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      await store.recordUsage("s", { model: "m", inputTokens: MAX - 1, outputTokens: 7 });
      await store.recordUsage("s", { model: "m", inputTokens: 1 });
      assert.equal((await store.getSession("s"))?.inputTokens, MAX);
      assert.equal((await store.getUsage("s"))[0]?.inputTokens, MAX);
      const before = await snapshot(store);
      const error = await throwsCode(
        () => store.recordUsage("s", { model: "m", inputTokens: 1 }),
        "INVALID_INPUT",
      );
      assert.equal((error as { field?: string }).field, "usage.inputTokens");
      assert.match(error.message, /9007199254740991/);
      await throwsCode(() => store.recordUsage("s", { model: "m", inputTokens: MAX }), "INVALID_INPUT");
      assert.deepEqual(await snapshot(store), before, "session totals and the usage row are unchanged");
      // Adding 0 to the full counter is not a sum that leaves the range.
      await store.recordUsage("s", { model: "m", outputTokens: 3 });
      assert.equal((await store.getSession("s"))?.outputTokens, 10);
      assert.equal((await store.getUsage("s"))[0]?.callCount, 3);
      await store.listSessions();
    });

    test("the session's total is guarded across usage rows, each row on its own", async ({ open, raw }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      await store.recordUsage("s", { model: "a", reasoningTokens: MAX });
      const before = await snapshot(store);
      await throwsCode(() => store.recordUsage("s", { model: "b", reasoningTokens: 1 }), "INVALID_INPUT");
      assert.deepEqual(await snapshot(store), before, "no row for model b, the total unchanged");

      // A usage row fuller than its session (planted): the row refuses, and the session's
      // update, already made in the same transaction, is rolled back.
      raw().exec(
        "UPDATE sessions SET cache_read_tokens = 0; UPDATE session_model_usage SET cache_read_tokens = " +
          MAX,
      );
      const planted = await snapshot(store);
      const error = await throwsCode(
        () => store.recordUsage("s", { model: "a", cacheReadTokens: 1 }),
        "INVALID_INPUT",
      );
      assert.equal((error as { field?: string }).field, "usage.cacheReadTokens");
      assert.deepEqual(await snapshot(store), planted);
    });

    test("a cost past MAX_COST_USD is refused, per call and as a total; nothing changes", async ({
      open,
    }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      const huge = await throwsCode(
        () => store.recordUsage("s", { model: "m", costUsd: 1e308 }),
        "INVALID_INPUT",
      );
      assert.equal((huge as { field?: string }).field, "usage.costUsd");
      await store.recordUsage("s", { model: "m", costUsd: MAX_COST_USD });
      const before = await snapshot(store);
      const error = await throwsCode(
        () => store.recordUsage("s", { model: "m", costUsd: 1 }),
        "INVALID_INPUT",
      );
      assert.equal((error as { field?: string }).field, "usage.costUsd");
      assert.deepEqual(await snapshot(store), before);
      assert.equal((await store.getSession("s"))?.estimatedCostUsd, MAX_COST_USD);
      assert.equal((await store.getUsage("s"))[0]?.costUsd, MAX_COST_USD);
      await store.recordUsage("s", { model: "m", costUsd: 0, inputTokens: 1 });
      assert.equal((await store.getSession("s"))?.inputTokens, 1);
    });

    test("timestamps past MAX_EPOCH_SECONDS (milliseconds by mistake) are refused; nothing changes", async ({
      open,
    }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      const ms = Date.now();
      const error = await throwsCode(
        () => store.appendMessage("s", { role: "user", content: "hi", timestamp: ms }),
        "INVALID_INPUT",
      );
      assert.match(error.message, /milliseconds/);
      await throwsCode(
        () => store.createSession({ id: "t", source: "cli", startedAt: 1e300 }),
        "INVALID_INPUT",
      );
      await throwsCode(() => store.search("hi", { since: -1e20 }), "INVALID_INPUT");
      assert.equal(await store.getSession("t"), undefined);
      assert.equal(await store.messageCount("s"), 0);
      await store.appendMessage("s", { role: "user", content: "hi", timestamp: MAX_EPOCH_SECONDS });
      assert.equal((await store.getMessages("s"))[0]?.timestamp, MAX_EPOCH_SECONDS);
    });

    test("integers past 2^53 planted by another writer read as the nearest double everywhere", async ({
      open,
      raw,
    }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      const id = await store.appendMessage("s", { role: "user", content: "hi" });
      await store.recordUsage("s", { model: "m", inputTokens: 1 });
      raw().exec(
        `UPDATE sessions SET input_tokens = ${PLANTED}, message_count = ${INT64_MAX};
         UPDATE session_model_usage SET output_tokens = ${PLANTED}, call_count = ${INT64_MAX};
         UPDATE messages SET token_count = ${PLANTED} WHERE id = ${id};`,
      );
      const near = Number(BigInt(PLANTED));
      const top = Number(BigInt(INT64_MAX));
      const session = await store.getSession("s");
      assert.equal(session?.inputTokens, near);
      assert.equal(session?.messageCount, top);
      const summary = (await store.listSessions())[0];
      assert.equal(summary?.inputTokens, near);
      assert.equal(summary?.messageCount, top);
      const [usage] = await store.getUsage("s");
      assert.equal(usage?.outputTokens, near);
      assert.equal(usage?.callCount, top);
      assert.equal((await store.getMessages("s"))[0]?.tokenCount, near);
      // The full counters refuse to grow; a call that leaves them alone is recorded.
      await throwsCode(() => store.recordUsage("s", { model: "m", inputTokens: 1 }), "INVALID_INPUT");
      await throwsCode(() => store.recordUsage("s", { model: "m", cacheWriteTokens: 1 }), "INVALID_INPUT");
      await store.recordUsage("s", { model: "other", cacheWriteTokens: 2 });
      assert.equal((await store.getSession("s"))?.cacheWriteTokens, 2);
    });
  });

  describe("JSON with __proto__ keys", () => {
    test("metadata, content parts, toolCalls and modelConfig keep __proto__ at every level", async ({
      open,
    }) => {
      const store = await open();
      await store.createSession({
        id: "s",
        source: "cli",
        metadata: protoObject(),
        modelConfig: protoObject(),
      });
      const session = await store.getSession("s");
      assertProtoKeys(session?.metadata, "session metadata");
      assertProtoKeys(session?.modelConfig, "modelConfig");
      assert.deepEqual(session?.metadata, protoObject());
      assertProtoKeys(
        (await store.updateSession("s", { metadata: protoObject() })).metadata,
        "updated metadata",
      );

      await store.appendMessage("s", {
        role: "assistant",
        content: [protoObject()],
        toolCalls: [protoObject()],
        metadata: protoObject(),
      });
      const [message] = await store.getMessages("s");
      assert.ok(message && Array.isArray(message.content));
      assertProtoKeys(message.content[0], "content part");
      assertProtoKeys(message?.toolCalls?.[0], "tool call");
      assertProtoKeys(message?.metadata, "message metadata");
      assert.deepEqual(message?.content, [protoObject()]);
    });

    test("a getter that throws is INVALID_INPUT naming the field, and nothing is stored", async ({
      open,
    }) => {
      const store = await open();
      const refused = async (fn: () => unknown, field: string) => {
        const error = await throwsCode(fn, "INVALID_INPUT");
        assert.equal((error as { field?: string }).field, field);
        assert.match(error.message, /getter exploded/);
      };
      await refused(
        () => store.createSession({ id: "s", source: "cli", metadata: throwing({ a: 1 }) }),
        "metadata.bad",
      );
      assert.equal(await store.getSession("s"), undefined);
      await store.createSession({ id: "s", source: "cli", metadata: { kept: true } });
      await refused(() => store.updateSession("s", { metadata: throwing({}) }), "metadata.bad");
      assert.deepEqual((await store.getSession("s"))?.metadata, { kept: true });

      await refused(
        () => store.appendMessage("s", { role: "user", content: "x", metadata: throwing({}) }),
        "messages[0].metadata.bad",
      );
      await refused(
        () => store.appendMessage("s", { role: "user", content: [throwing({ type: "text", text: "t" })] }),
        "messages[0].content[0].bad",
      );
      const calls = [{ id: "c" }];
      Object.defineProperty(calls, 1, {
        enumerable: true,
        get() {
          throw new Error("getter exploded");
        },
      });
      await refused(
        () => store.appendMessage("s", { role: "assistant", toolCalls: calls }),
        "messages[0].toolCalls[1]",
      );
      await refused(
        () => store.createSession({ id: "t", source: "cli", modelConfig: throwing({}) }),
        "modelConfig.bad",
      );
      assert.equal(await store.messageCount("s"), 0);
      assert.equal(await store.getSession("t"), undefined);
    });

    test("a throwing getter on the input object itself is INVALID_INPUT naming the field", async ({
      open,
    }) => {
      const store = await open();
      const exploding = <T extends object>(base: T, key: string): T =>
        Object.defineProperty({ ...base }, key, {
          enumerable: true,
          get() {
            throw new Error("getter exploded");
          },
        });
      const refused = async (fn: () => unknown, field: string) => {
        const error = await throwsCode(fn, "INVALID_INPUT");
        assert.equal((error as { field?: string }).field, field);
      };
      await refused(() => store.createSession(exploding({ id: "s" }, "source") as never), "source");
      assert.equal(await store.getSession("s"), undefined);
      await store.createSession({ id: "s", source: "cli", title: "kept" });
      await refused(() => store.updateSession("s", exploding({}, "title")), "title");
      await refused(
        () => store.appendMessage("s", exploding({ content: "x" }, "role") as never),
        "messages[0].role",
      );
      await refused(
        () => store.recordUsage("s", exploding({ model: "m" }, "inputTokens")),
        "usage.inputTokens",
      );
      assert.equal((await store.getSession("s"))?.title, "kept");
      assert.equal(await store.messageCount("s"), 0);
      assert.deepEqual(await store.getUsage("s"), []);
    });
  });
}
