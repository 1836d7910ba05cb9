/**
 * Conformance: `store.vacuum()`. New stores vacuum incrementally: the pages of deleted sessions
 * go back in paced steps while another connection keeps appending, and what remains reads,
 * searches and checks exactly as before. A store created before incremental vacuum is left alone
 * (and says why) unless a full vacuum is asked for, which compacts it and makes it incremental.
 * Bad options, a read-only store and a transaction are refused.
 */
import { statSync } from "node:fs";
import {
  assert,
  type Capability,
  type ConformanceStore,
  type ConformanceTarget,
  capabilitiesOf,
  fixtureTest,
  refusesInTransactionAndAborted,
  rejectsEach,
  SAFE_SQLITE,
  scalar,
  throwsCode,
  whileAppending,
} from "./harness.js";

const FILLER = "vacuum filler text that takes room on its pages ".repeat(40);
/** The text of the 1 500 rows the first test drops. */
const DROPPED_BYTES = 1500 * FILLER.length;

async function fill(store: ConformanceStore, id: string, rows: number): Promise<void> {
  await store.createSession({ id, source: "test" });
  await store.appendMessages(
    id,
    Array.from({ length: rows }, (_, n) => ({
      role: "assistant" as const,
      content: `${id} row ${n} ${FILLER}`,
    })),
  );
}

export function vacuumSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);
  const has = (capability: Capability) => capabilitiesOf(target).includes(capability);

  describe("vacuum", () => {
    test(
      "a new store gives the pages of deleted sessions back in paced steps while another connection appends; what remains is intact",
      async (f) => {
        const store = await f.open({ sqliteVersion: SAFE_SQLITE });
        await fill(store, "kept", 300);
        await fill(store, "dropped", 1500);
        await store.deleteSession("dropped");
        const sizeBefore = has("files") ? statSync(f.file()).size : 0;
        const other = await f.open({ sqliteVersion: SAFE_SQLITE });
        await other.createSession({ id: "live", source: "test" });
        const progress: Array<{ freedPages: number; totalPages: number; done: boolean }> = [];
        const { result, appended } = await whileAppending(other, "live", () =>
          store.vacuum({ onProgress: (p) => progress.push(p) }),
        );
        assert.equal(result.method, "incremental");
        // At least the dropped rows' text went back (their index entries stay until an FTS optimize).
        assert.ok(
          result.bytesBefore - result.bytesAfter > DROPPED_BYTES,
          `${result.bytesBefore} → ${result.bytesAfter}: less than the ${DROPPED_BYTES} bytes of the dropped rows`,
        );
        assert.equal(result.reclaimableBytes, 0);
        assert.ok(progress.length > 1, `one step only (${progress.length}): the job was not paced`);
        for (let i = 1; i < progress.length; i++) {
          assert.ok(
            (progress[i]?.freedPages ?? 0) >= (progress[i - 1]?.freedPages ?? 0),
            "progress went back",
          );
        }
        assert.equal(progress.at(-1)?.done, true);
        assert.equal(progress.filter((p) => p.done).length, 1);
        await other.close();
        await store.close();
        if (has("files"))
          assert.ok(sizeBefore - statSync(f.file()).size > DROPPED_BYTES, "the file did not shrink");

        const reopened = await f.open({ sqliteVersion: SAFE_SQLITE });
        assert.equal(await reopened.messageCount("kept"), 300);
        assert.equal(await reopened.messageCount("live"), appended);
        assert.equal(await reopened.getSession("dropped"), undefined);
        assert.equal((await reopened.search("row 299")).hits[0]?.sessionId, "kept");
        assert.equal((await reopened.search("dropped")).hits.length, 0);
        assert.deepEqual(await reopened.checkIntegrity(), { ok: true, problems: [] });
        // Nothing left to free: done at once.
        assert.equal((await reopened.vacuum()).reclaimableBytes, 0);
      },
      ["files"],
    );

    test(
      "each step frees its whole chunk of pages, on every binding",
      async (f) => {
        const store = await f.open({ sqliteVersion: SAFE_SQLITE });
        await fill(store, "dropped", 1500);
        await store.deleteSession("dropped");
        const steps: number[] = [];
        const result = await store.vacuum({ onProgress: (p) => steps.push(p.freedPages) });
        // ~870 free pages, nobody else writing: on a quiet machine chunks of 256, 256, then 512
        // pages; a loaded one makes steps slower, and the pacing scales a slow step's chunk back
        // towards its hold-time target, never below the job's smallest chunk (32 pages: 7 steps
        // under two busy loops). A binding whose exec steps the pragma once would free one page
        // per step (hundreds of steps): every step but the last frees a whole chunk.
        const freed = steps.map((total, i) => total - (steps[i - 1] ?? 0));
        assert.ok(
          freed.slice(0, -1).every((pages) => pages >= 32),
          `pages freed per step: ${freed.join(", ")}`,
        );
        assert.ok(steps.length <= Math.ceil((steps.at(-1) ?? 0) / 32) + 1, `${steps.length} steps`);
        assert.equal(result.reclaimableBytes, 0);
        assert.deepEqual(await store.checkIntegrity(), { ok: true, problems: [] });
        await store.close();
      },
      ["files"],
    );

    test(
      "a vacuum that meets another writer's lock waits for it with the store's patience, and past it is STORE_BUSY with nothing changed",
      async (f) => {
        const store = await f.open({ sqliteVersion: SAFE_SQLITE, patience: { writeMs: 300 } });
        await fill(store, "kept", 50);
        await fill(store, "dropped", 400);
        await store.deleteSession("dropped");
        const blocker = f.raw();
        blocker.exec("BEGIN IMMEDIATE");
        try {
          await throwsCode(() => store.vacuum(), "STORE_BUSY");
        } finally {
          blocker.exec("ROLLBACK");
          blocker.close();
        }
        assert.equal(await store.messageCount("kept"), 50);
        const result = await store.vacuum();
        assert.equal(result.method, "incremental");
        assert.equal(result.reclaimableBytes, 0);
        assert.deepEqual(await store.checkIntegrity(), { ok: true, problems: [] });
        await store.close();
      },
      ["files"],
    );

    if (!has("files"))
      test("where the engine owns the database file (a server), vacuum does nothing and says so", async (f) => {
        const store = await f.open();
        await fill(store, "s", 50);
        await store.deleteSession("s");
        for (const options of [undefined, { full: true }]) {
          const result = await store.vacuum(options);
          assert.equal(result.method, "none");
          assert.match(result.note ?? "", /engine owns the database file/);
        }
        assert.deepEqual(await store.checkIntegrity(), { ok: true, problems: [] });
      });

    test(
      "a store created before incremental vacuum is left alone and says why; { full: true } compacts it and makes it incremental",
      async (f) => {
        // The layout of a store made before new stores were incremental: a table created (and
        // dropped) before the store's own fixes auto_vacuum at NONE.
        const raw = f.raw();
        raw.exec("CREATE TABLE legacy_layout(x)");
        raw.exec("DROP TABLE legacy_layout");
        raw.close();
        const store = await f.open({ sqliteVersion: SAFE_SQLITE });
        await fill(store, "kept", 100);
        await fill(store, "dropped", 800);
        await store.close();
        const check = f.raw();
        assert.equal(scalar(check, "PRAGMA auto_vacuum"), 0);
        check.close();
        const legacy = await f.open({ sqliteVersion: SAFE_SQLITE });
        await legacy.deleteSession("dropped");
        const untouched = await legacy.vacuum();
        assert.equal(untouched.method, "none");
        assert.match(untouched.note ?? "", /full vacuum/);
        assert.ok(untouched.reclaimableBytes > 0);
        assert.equal(untouched.bytesAfter, untouched.bytesBefore);

        const full = await legacy.vacuum({ full: true }).catch((error: Error & { code?: string }) => {
          // A binding that allows no attached database cannot VACUUM (Deno's node:sqlite).
          assert.equal(error.code, "DRIVER_UNAVAILABLE", error.message);
          return undefined;
        });
        if (!full) {
          console.log(`[conformance] ${target.name}: a full vacuum is refused: this binding cannot VACUUM`);
          assert.equal(await legacy.messageCount("kept"), 100);
          assert.deepEqual(await legacy.checkIntegrity(), { ok: true, problems: [] });
          return;
        }
        assert.equal(full.method, "full");
        assert.ok(full.bytesBefore - full.bytesAfter > (DROPPED_BYTES * 800) / 1500);
        assert.equal(full.reclaimableBytes, 0);
        assert.equal(await legacy.messageCount("kept"), 100);
        assert.deepEqual(await legacy.checkIntegrity(), { ok: true, problems: [] });
        assert.equal((await legacy.search("row 99")).hits[0]?.sessionId, "kept");
        await legacy.deleteSession("kept");
        assert.equal((await legacy.vacuum()).method, "incremental");
      },
      ["files"],
    );

    test("bad options, a read-only store and a transaction are refused with nothing changed", async (f) => {
      const store = await f.open();
      await fill(store, "s", 20);
      const bad = [5, "full", [], { full: "yes" }, { onProgress: 5 }, { signal: {} }];
      await rejectsEach(
        bad.map((options) => () => store.vacuum(options as never)),
        "vacuum",
        "INVALID_INPUT",
      );
      await refusesInTransactionAndAborted(store, (s, signal) => s.vacuum({ signal }));
      await store.close();
      const reader = await f.open({ readOnly: true });
      await throwsCode(() => reader.vacuum(), "STORE_READONLY");
      assert.equal(await reader.messageCount("s"), 20);
    });
  });
}
