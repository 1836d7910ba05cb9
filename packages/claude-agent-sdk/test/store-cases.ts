/**
 * The SessionStore contract on a real store, written once for vitest (Node: better-sqlite3 and
 * a real sqld), `bun test` and `deno test`; each entry passes its runner's describe/it and how
 * to open a store. From the SDK's documented rules: entries come back deep-equal and in order
 * (non-message entries too), uuid is the idempotency key and entries without one are appended
 * as they come, subpaths are child transcripts, listSessions is per projectKey with mtimes in
 * epoch ms, delete of a main transcript takes its subagents, and a bad batch stores nothing.
 */
import assert from "node:assert/strict";
import type { AsyncStore, Message, Session, Store, UsageRow } from "@sessiondb/core";
import { InvalidInputError, SessionDbSessionStore } from "../src/index.js";
import { MODEL, transcript } from "./support/transcript.js";

type Suite = (name: string, body: () => void) => void;
type Test = (name: string, body: () => Promise<void>) => void;
type Hooks = { before(fn: () => Promise<void>): void; after(fn: () => Promise<void>): void };

export interface StoreTarget {
  name: string;
  /** Why the target cannot run here (the cases are then skipped, saying so). */
  skip?: string;
  open(): Promise<Store | AsyncStore>;
  close(store: Store | AsyncStore): Promise<void>;
}

let counter = 0;
/** A fresh session id per case (the cases share one store). */
const newId = () =>
  `${(0x10000000 + ++counter * 7919).toString(16).slice(0, 8)}-aaaa-4bbb-8ccc-${Date.now().toString(16).padStart(12, "0")}`;

export function storeCases(describe: Suite, it: Test, hooks: Hooks, target: StoreTarget): void {
  describe(`SessionDbSessionStore (${target.name})`, () => {
    if (target.skip !== undefined) {
      it(`skipped: ${target.skip}`, async () => console.log(`skipped ${target.name}: ${target.skip}`));
      return;
    }
    let store: Store | AsyncStore;
    let sdk: SessionDbSessionStore;
    hooks.before(async () => {
      store = await target.open();
      sdk = new SessionDbSessionStore({ store });
    });
    hooks.after(async () => target.close(store));

    it("gives back what was appended, in order, and stores it as a searchable session", async () => {
      const sessionId = newId();
      const key = { projectKey: "-srv-app", sessionId };
      const entries = transcript(sessionId);
      assert.equal(await sdk.load(key), null, "never written: null");
      // Split inside the first response: its usage must still count once.
      await sdk.append(key, entries.slice(0, 3));
      await sdk.append(key, entries.slice(3));
      assert.deepEqual(await sdk.load(key), entries);
      const session = (await store.getSession(sessionId)) as Session;
      assert.deepEqual(
        [
          session.source,
          session.title,
          session.cwd,
          session.model,
          session.messageCount,
          session.toolCallCount,
        ],
        ["claude-agent-sdk", "Zeilen zählen", "/srv/app", MODEL, 5, 1],
      );
      const usage = (await store.getUsage(sessionId)) as UsageRow[];
      assert.deepEqual(
        usage.map((u) => [
          u.model,
          u.callCount,
          u.inputTokens,
          u.outputTokens,
          u.cacheWriteTokens,
          u.cacheReadTokens,
        ]),
        [[MODEL, 2, 17, 100, 400, 6400]],
      );
      const rows = (await store.getMessages(sessionId)) as Message[];
      assert.deepEqual(
        rows.map((r) => [r.role, r.toolName]),
        [
          ["user", null],
          ["assistant", null],
          ["assistant", null],
          ["tool", "Bash"],
          ["assistant", null],
        ],
      );
      const found = await store.search("Zeilen", { sessionId });
      // The question, the answer, and the title line (kept inactive, still searchable).
      assert.deepEqual(
        found.hits.map((h) => h.sessionId),
        [sessionId, sessionId, sessionId],
      );
    });

    it("follows a session that another writer appends to between its own appends", async () => {
      // Two SessionStores on one store (two processes, as far as each knows) take turns, one
      // line each: each must see the other's lines, so the response split between them has its
      // usage counted once and the tool result finds its call's name.
      const sessionId = newId();
      const key = { projectKey: "-srv-app", sessionId };
      const entries = transcript(sessionId);
      const other = new SessionDbSessionStore({ store });
      for (const [i, entry] of entries.entries()) await (i % 2 === 0 ? sdk : other).append(key, [entry]);
      assert.deepEqual(await sdk.load(key), entries);
      const usage = (await store.getUsage(sessionId)) as UsageRow[];
      assert.deepEqual(
        usage.map((u) => [u.model, u.callCount, u.inputTokens, u.outputTokens]),
        [[MODEL, 2, 17, 100]],
      );
      const rows = (await store.getMessages(sessionId)) as Message[];
      assert.deepEqual(
        rows.filter((r) => r.role === "tool").map((r) => r.toolName),
        ["Bash"],
      );
    });

    it("stores an entry once by its uuid; an entry without one each time it comes", async () => {
      const sessionId = newId();
      const key = { projectKey: "-srv-app", sessionId };
      const entries = transcript(sessionId);
      await sdk.append(key, entries);
      await sdk.append(key, entries); // a retried batch, or importSessionToStore run again
      const withUuid = entries.filter((e) => e.uuid !== undefined);
      const without = entries.filter((e) => e.uuid === undefined);
      assert.deepEqual(await sdk.load(key), [...entries, ...without]);
      assert.equal(withUuid.length, 5);
      const usage = (await store.getUsage(sessionId)) as UsageRow[];
      assert.equal(usage[0]?.callCount, 2, "a replay records no usage");
      assert.equal(((await store.getSession(sessionId)) as Session).messageCount, 5);
    });

    it("keeps subagent transcripts as child sessions, listed and deleted with their main one", async () => {
      const sessionId = newId();
      const main = { projectKey: "-srv-app", sessionId };
      const sub = { ...main, subpath: "subagents/agent-a1b2" };
      const subEntries = transcript(sessionId).map((e) => ({ ...e, isSidechain: true, agentId: "a1b2" }));
      await sdk.append(sub, subEntries.slice(1, 3)); // the subagent before its main transcript
      await sdk.append(main, transcript(sessionId));
      await sdk.append(sub, subEntries.slice(3));
      assert.deepEqual(await sdk.listSubkeys(main), ["subagents/agent-a1b2"]);
      assert.deepEqual(await sdk.load(sub), subEntries.slice(1));
      const parent = (await store.getSession(sessionId)) as Session;
      assert.deepEqual([parent.cwd, parent.model, parent.title], ["/srv/app", MODEL, "Zeilen zählen"]);
      const child = (await store.getSession(`${sessionId}/subagents/agent-a1b2`)) as Session;
      assert.equal(child.parentSessionId, sessionId);
      const listed = await sdk.listSessions("-srv-app");
      const mine = listed.find((l) => l.sessionId === sessionId);
      assert.ok(
        mine !== undefined && Number.isInteger(mine.mtime) && mine.mtime > 1.7e12,
        "mtime in epoch ms",
      );
      assert.equal(
        listed.filter((l) => l.sessionId.startsWith(sessionId)).length,
        1,
        "only main transcripts",
      );
      await sdk.delete(main);
      assert.equal(await sdk.load(main), null);
      assert.equal(await sdk.load(sub), null);
      assert.deepEqual(await sdk.listSubkeys(main), []);
    });

    it("keeps projects apart", async () => {
      const sessionId = newId();
      await sdk.append({ projectKey: "tenant-a", sessionId }, transcript(sessionId));
      assert.equal(await sdk.load({ projectKey: "tenant-b", sessionId }), null);
      assert.deepEqual(await sdk.listSessions("tenant-b"), []);
      await assert.rejects(
        sdk.append({ projectKey: "tenant-b", sessionId }, transcript(sessionId)),
        InvalidInputError,
      );
      assert.deepEqual(
        (await sdk.listSessions("tenant-a")).map((l) => l.sessionId),
        [sessionId],
      );
    });

    it("refuses a bad batch naming the entry, and stores nothing of it", async () => {
      const sessionId = newId();
      const key = { projectKey: "-srv-app", sessionId };
      const good = transcript(sessionId);
      await sdk.append(key, good.slice(0, 2));
      const cyclic: { [k: string]: unknown } = { type: "user", uuid: "c-1" };
      cyclic.self = cyclic;
      const huge = {
        type: "user",
        uuid: "h-1",
        message: { role: "user", content: "x".repeat(50 * 1024 * 1024) },
      };
      const cases: [unknown[], string][] = [
        [[good[2], "not an entry"], "entries[1]"],
        [[good[2], good[3], cyclic], "entries[2].self"],
        [[{ type: "user", at: new Date(0) }], "entries[0].at"],
        [[{ uuid: "x" }], "entries[0].type"],
        [[good[2], huge], "entries[1]"],
      ];
      for (const [batch, field] of cases) {
        const error = await sdk.append(key, batch as never).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(error instanceof InvalidInputError, `${field}: ${String(error)}`);
        assert.equal(error.field, field);
      }
      assert.deepEqual(await sdk.load(key), good.slice(0, 2), "nothing of a refused batch stored");
      await assert.rejects(sdk.load({ projectKey: "", sessionId }), InvalidInputError);
      await assert.rejects(sdk.load({ projectKey: "p", sessionId, subpath: "" }), InvalidInputError);
    });
  });
}
