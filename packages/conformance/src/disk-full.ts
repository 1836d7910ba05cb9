/**
 * A full disk, for real: the store lives on a small tmpfs that fills up. Every write, the open,
 * rebuildFts, backfill and maintenance then fail with STORE_FULL; nothing acknowledged is lost,
 * nothing refused is stored, and the store works again once there is room. Both journal arms:
 * WAL (the -wal grows; a checkpoint needs the database file to grow) and DELETE (every write
 * first creates a -journal).
 */
import { closeSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createStore, type Host, repairStore, type Store } from "@sessiondb/core";
import { CHECKPOINT_EVERY_WRITES } from "@sessiondb/core/testing";
import { assert, type ConformanceTarget, SAFE_SQLITE, throwsCodeSync } from "./harness.js";
import { type Tmpfs, tmpfsUnavailable, withTmpfs } from "./tmpfs.js";

/** Room for a few hundred appends before the disk is full. */
const DISK_BYTES = 2 * 1024 * 1024;
/** Too small for the copy of a store of a few hundred messages. */
const COPY_DISK_BYTES = 256 * 1024;
/** Freed to let the store work again. */
const BALLAST_BYTES = 1024 * 1024;
/** A bound on the fill loop, far above what DISK_BYTES holds. */
const MAX_APPENDS = 5000;

const ARMS = [
  { mode: "wal", sqliteVersion: SAFE_SQLITE },
  // A WAL-reset-vulnerable version: the real journal policy keeps the store in DELETE mode.
  { mode: "delete", sqliteVersion: "3.50.4" },
] as const;

/** Fill what is left of the file system with a file of our own, down to the last byte. */
function fillRest(dir: string): void {
  const fd = openSync(join(dir, "pad"), "a");
  try {
    for (let chunk = 64 * 1024; chunk >= 1; ) {
      try {
        writeSync(fd, Buffer.alloc(chunk, 1));
      } catch (error) {
        if ((error as { code?: unknown }).code !== "ENOSPC") throw error;
        chunk = Math.floor(chunk / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** The text of message `k` of batch `i`: a token of its own, and filler that takes room. */
function content(i: number, k: number): string {
  return `tok${i}x${k} ${"lorem ipsum dolor sit amet ".repeat(60)}${i}`;
}

/** Every acknowledged batch's messages are stored exactly once, and nothing else is. */
function assertExactlyOnce(store: Store, acked: readonly number[]): void {
  const stored = store.getMessages("s").map((message) => message.content);
  const expected = acked.flatMap((i) => [0, 1, 2].map((k) => content(i, k)));
  assert.deepEqual(stored, expected, "stored messages differ from the acknowledged ones");
  assert.equal(store.messageCount("s"), expected.length);
  assert.equal(store.getSession("s")?.messageCount, expected.length);
}

function isFull(fn: () => unknown, what?: RegExp): void {
  const error = throwsCodeSync(fn, "STORE_FULL");
  assert.equal(error.name, "StoreFullError");
  if (what) assert.match(error.message, what);
}

export function diskFullSuite(target: ConformanceTarget): void {
  const { describe, it } = target;
  describe("a full disk (a real tmpfs)", () => {
    const why = tmpfsUnavailable();
    if (why) {
      console.log(`[conformance] ${target.name}: skipped "a full disk": cannot mount a tmpfs (${why})`);
      return;
    }
    const open = (dir: string, sqliteVersion: string, name = "state.db") =>
      createStore(target.driver, join(dir, name), { host: target.host, sqliteVersion });

    for (const arm of ARMS) {
      it(`${arm.mode}: every write fails with STORE_FULL, nothing acknowledged is lost, and it works again once there is room`, () =>
        withTmpfs(DISK_BYTES, ({ dir }: Tmpfs) => {
          writeFileSync(join(dir, "ballast"), Buffer.alloc(BALLAST_BYTES, 1));
          const store = open(dir, arm.sqliteVersion);
          assert.equal(store.journalMode, arm.mode);
          store.createSession({ id: "s", source: "test" });

          const acked: number[] = [];
          const append = (i: number) => {
            store.appendMessages(
              "s",
              [0, 1, 2].map((k) => ({ role: "user" as const, content: content(i, k) })),
            );
            acked.push(i);
          };
          let refused: unknown;
          let next = 0;
          for (; next < MAX_APPENDS && refused === undefined; next++) {
            try {
              append(next);
            } catch (error) {
              refused = error;
            }
          }
          assert.ok(refused !== undefined, `${MAX_APPENDS} appends fitted in ${DISK_BYTES} bytes`);
          assert.ok(acked.length > 0, "not even the first append fitted");
          isFull(() => {
            throw refused;
          }, /the append of 3 messages to session "s" was not stored/);
          assert.match(String((refused as Error).message), /Nothing acknowledged before was lost/);
          assert.match(String((refused as Error).message), /Free disk space or raise the quota/);

          // Room again: the same store goes on. (In WAL mode these appends also take up the
          // frames the refused one left in the -wal, which a smaller write could still use.)
          rmSync(join(dir, "ballast"));
          for (const stop = next + 3; next < stop; next++) append(next);

          // Now not a byte is left: everything that must write fails the same way.
          fillRest(dir);
          isFull(
            () => store.appendMessage("s", { role: "user", content: "one more" }),
            /the append of 1 message to session "s"/,
          );
          isFull(() => store.createSession({ id: "t", source: "test" }));
          isFull(() => store.rebuildFts({ timeoutMs: 0 }), /the FTS rebuild was not stored/);
          isFull(() => store.startFtsBackfill());
          if (arm.mode === "wal") {
            // The WAL holds every commit; moving them into the database file needs it to grow.
            isFull(() => store.maintenanceTick(), /the maintenance work/);
          } else {
            try {
              store.maintenanceTick();
            } catch (error) {
              isFull(() => {
                throw error;
              });
            }
          }
          isFull(() => open(dir, arm.sqliteVersion, "new.db"), /opening ".*new\.db" failed/);
          assertExactlyOnce(store, acked);
          // Closing loses nothing, so a checkpoint that finds no room does not fail it.
          store.close();

          // Reopened on the full disk: a current store opens without writing.
          const reopened = open(dir, arm.sqliteVersion);
          assertExactlyOnce(reopened, acked);
          reopened.close();

          rmSync(join(dir, "pad"));
          const after = open(dir, arm.sqliteVersion);
          assertExactlyOnce(after, acked);
          assert.deepEqual(after.checkIntegrity(), { ok: true, problems: [] });
          const last = acked.at(-1) as number;
          assert.equal(after.search(`tok${last}x2`).hits.length, 1);
          after.appendMessage("s", { role: "user", content: "room again" });
          after.maintenanceTick();
          assert.equal(after.rebuildFts({ timeoutMs: 0 }).rebuilt, true);
          assert.equal(after.search("room again").hits.length, 1);
          after.close();
        }));
    }

    for (const arm of ARMS) {
      it(`${arm.mode}: a store closed with room opens on the full disk (WAL: STORE_FULL, its -shm needs room)`, () =>
        withTmpfs(DISK_BYTES, ({ dir }: Tmpfs) => {
          const store = open(dir, arm.sqliteVersion);
          store.createSession({ id: "s", source: "test" });
          store.appendMessage("s", { role: "user", content: "kept" });
          // The last connection's close checkpoints and removes the -wal and -shm.
          store.close();
          fillRest(dir);
          if (arm.mode === "wal") {
            isFull(() => open(dir, arm.sqliteVersion), /opening ".*state\.db" failed: .*-shm/);
            rmSync(join(dir, "pad"));
          }
          const reopened = open(dir, arm.sqliteVersion);
          assert.deepEqual(
            reopened.getMessages("s").map((message) => message.content),
            ["kept"],
          );
          reopened.close();
        }));
    }

    for (const arm of ARMS) {
      it(`${arm.mode}: a backup onto a full disk is STORE_FULL naming the copy, leaves nothing there, and the store is unchanged`, () =>
        withTmpfs(4 * DISK_BYTES, ({ dir: home }: Tmpfs) =>
          withTmpfs(COPY_DISK_BYTES, async ({ dir }: Tmpfs) => {
            const store = open(home, arm.sqliteVersion);
            assert.equal(store.journalMode, arm.mode);
            store.createSession({ id: "s", source: "test" });
            const acked = Array.from({ length: 100 }, (_, i) => i);
            for (const i of acked) {
              store.appendMessages(
                "s",
                [0, 1, 2].map((k) => ({ role: "user" as const, content: content(i, k) })),
              );
            }
            const destination = join(dir, "copy.db");
            const error = await store.backup(destination).then(
              () => assert.fail("the backup fitted on the small disk"),
              (caught: unknown) => caught as Error & { code?: string },
            );
            // Before, the binding's own SQLITE_FULL (or a STORE_FULL that blamed the store's disk).
            assert.equal(error.code, "STORE_FULL", String(error));
            assert.equal(error.name, "StoreFullError");
            assert.ok(error.message.includes(JSON.stringify(destination)), error.message);
            assert.deepEqual(readdirSync(dir), [], "the failed copy left files behind");
            assertExactlyOnce(store, acked);
            store.appendMessage("s", { role: "user", content: content(100, 0) });
            // With room, the same store backs up.
            const copy = await store.backup(join(home, "copy.db"));
            assert.ok(copy.bytes > COPY_DISK_BYTES);
            store.close();
          }),
        ));
    }

    it("a repair with no room beside the store is STORE_FULL, leaves nothing there, and the store is unchanged", () =>
      withTmpfs(DISK_BYTES, async ({ dir }: Tmpfs) => {
        const store = open(dir, SAFE_SQLITE);
        store.createSession({ id: "s", source: "test" });
        const acked = Array.from({ length: 10 }, (_, i) => i);
        for (const i of acked) {
          store.appendMessages(
            "s",
            [0, 1, 2].map((k) => ({ role: "user" as const, content: content(i, k) })),
          );
        }
        store.close();
        fillRest(dir);
        const before = readdirSync(dir).sort();
        const bytes = readFileSync(join(dir, "state.db"));
        const options = { driver: target.driver, host: target.host as Host };
        for (const checkOnly of [true, false]) {
          const error = await repairStore(join(dir, "state.db"), { ...options, checkOnly }).then(
            () => assert.fail("the repair's copy fitted on the full disk"),
            (caught: unknown) => caught as Error & { code?: string },
          );
          // Before, STORE_OPEN_FAILED ("disk I/O error") or, with room for the copy but not
          // the salvage, STORE_CORRUPT ("no strategy produced a sound store").
          assert.equal(error.code, "STORE_FULL", String(error));
          assert.deepEqual(readdirSync(dir).sort(), before, "the failed repair left files behind");
          assert.ok(readFileSync(join(dir, "state.db")).equals(bytes), "the failed repair changed the store");
        }
        rmSync(join(dir, "pad"));
        const report = await repairStore(join(dir, "state.db"), options);
        assert.equal(report.strategy, "none");
        const reopened = open(dir, SAFE_SQLITE);
        assertExactlyOnce(reopened, acked);
        reopened.close();
      }));

    it(`wal: an append whose periodic checkpoint finds the disk full is acknowledged, and stored once`, () =>
      withTmpfs(4 * DISK_BYTES, ({ dir }: Tmpfs) => {
        writeFileSync(join(dir, "ballast"), Buffer.alloc(BALLAST_BYTES, 1));
        open(dir, SAFE_SQLITE).close();
        // A current store's open writes nothing, so this store's write count starts at 0 here.
        const store = open(dir, SAFE_SQLITE);
        store.createSession({ id: "s", source: "test" });
        for (let n = 2; n < CHECKPOINT_EVERY_WRITES; n++) store.updateSession("s", { title: `t${n}` });
        // Everything checkpointed now, so the next commit starts the WAL over: it fits in the
        // WAL's existing pages, while its checkpoint must grow the database file.
        const raw = target.driver.open(join(dir, "state.db"), { readOnly: false });
        const [busy, frames, moved] = Object.values(
          raw.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() ?? {},
        );
        raw.close();
        assert.deepEqual([busy, moved], [0, frames], "the checkpoint before the fill did not complete");
        fillRest(dir);
        const big = `kept ${"0123456789abcdef".repeat(8 * 1024)}`;
        // The CHECKPOINT_EVERY_WRITES-th write: committed, then its checkpoint meets the full disk.
        const id = store.appendMessage("s", { role: "user", content: big });
        assert.ok(id > 0);
        isFull(() => store.maintenanceTick(), /the maintenance work/);
        store.close();
        rmSync(join(dir, "pad"));
        rmSync(join(dir, "ballast"));
        const after = open(dir, SAFE_SQLITE);
        const stored = after.getMessages("s");
        assert.deepEqual(
          stored.map((message) => [message.id, message.content]),
          [[id, big]],
        );
        assert.deepEqual(after.checkIntegrity(), { ok: true, problems: [] });
        after.close();
      }));
  });
}
