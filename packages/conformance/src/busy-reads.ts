/**
 * Conformance: the read-only maintenance calls — `checkIntegrity`, `ftsStatus`, `stats` and
 * `backup`'s read — meet another connection's lock, and a hot rollback journal, as every read
 * does: they wait the store's read patience, then throw StoreBusyError, never the engine's bare
 * SQLITE_BUSY or SQLITE_READONLY. Found by the torture chamber (DELETE arm): `checkIntegrity`
 * runs several statements, and a writer committing between two of them met the one that had no
 * patience. Both cases are set up exactly, not raced: the lock is taken from a hook right before
 * the statement it is to meet, and the hot journal is planted by copying a file mid-transaction,
 * so each test waits only its small patience budget, however loaded the machine is.
 */
import { copyFileSync, existsSync, rmSync, statSync } from "node:fs";
import { createStore, type Store } from "@sessiondb/core";
import type { SqliteConnection } from "@sessiondb/core/driver";
import { assert, type ConformanceTarget, fileFixtureTest, recordingDriver } from "./harness.js";

/** The read patience under test (ms): small, since every case waits it out once. */
const BUDGET_MS = 60;

/** The calls under test, by name; `n` makes each backup's destination a new file. */
const CALLS: ReadonlyArray<
  readonly [string, (store: Store, file: (name: string) => string, n: number) => unknown]
> = [
  ["checkIntegrity", (store) => store.checkIntegrity()],
  ["ftsStatus", (store) => store.ftsStatus()],
  ["stats", (store) => store.stats()],
  ["backup", (store, file, n) => store.backup(file(`copy-${n}.db`))],
];

/** A DELETE-mode store with a few rows (indexed), closed again. */
function seedStore(open: (options: object) => Store): void {
  const store = open({ journalMode: "delete" });
  assert.equal(store.journalMode, "delete");
  store.createSession({ id: "s", source: "test" });
  for (let i = 0; i < 20; i++) store.appendMessage("s", { role: "user", content: `row ${i} of the seed` });
  store.close();
}

/** What `fn` threw or rejected with, or undefined. */
async function failure(
  fn: () => unknown,
): Promise<{ code?: string; waitedMs?: number; message?: string } | undefined> {
  try {
    await fn();
    return undefined;
  } catch (error) {
    return error as { code?: string; waitedMs?: number; message?: string };
  }
}

function assertWaitedThenBusy(error: { code?: string; waitedMs?: number } | undefined, what: string): void {
  assert.equal(error?.code, "STORE_BUSY", `${what}: ${String(error)}`);
  assert.ok(
    (error?.waitedMs ?? 0) >= BUDGET_MS,
    `${what} waited ${error?.waitedMs} ms, its patience is ${BUDGET_MS} ms`,
  );
}

/**
 * Leave a hot rollback journal beside `path`, as a DELETE-mode writer killed mid-transaction
 * does: a sibling copy of the store gets a write transaction big enough to spill pages to its
 * file (so its journal is synced, with a header: hot once no one holds its lock), and both files
 * are copied over the store's.
 */
function plantHotJournal(path: string, raw: (path: string) => SqliteConnection): void {
  const sibling = `${path}.sibling`;
  copyFileSync(path, sibling);
  const conn = raw(sibling);
  conn.exec("PRAGMA cache_size = 10");
  conn.exec("BEGIN IMMEDIATE");
  const insert = conn.prepare(
    "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', 'user', ?, 1)",
  );
  for (let i = 0; i < 200; i++) insert.run(`uncommitted ${i} ${"z".repeat(3000)}`);
  copyFileSync(sibling, path);
  copyFileSync(`${sibling}-journal`, `${path}-journal`);
  conn.close();
  rmSync(sibling, { force: true });
  rmSync(`${sibling}-journal`, { force: true });
}

export function busyReadsSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const hookedTest = fileFixtureTest(target, ["driver-hooks"]);
  const fileTest = fileFixtureTest(target, ["files"]);

  describe("busy reads", () => {
    hookedTest(
      "DELETE mode: a lock another connection takes right before any statement of checkIntegrity, ftsStatus, stats or backup makes the call wait its patience, then STORE_BUSY; once it is let go the call answers",
      async (f) => {
        seedStore((options) => f.open(options));
        const holder = f.raw();
        let armed = false;
        let step = 0;
        let lockAt = -1;
        let locked: string | undefined;
        // Only the store's own statements count: a backup's connection to its copy meets no lock.
        const hooked = recordingDriver(target.driver, undefined, (sql, path) => {
          if (!armed || path !== f.file() || step++ !== lockAt) return;
          try {
            // EXCLUSIVE: what a DELETE-mode writer holds while it commits; no reader gets in.
            holder.exec("BEGIN EXCLUSIVE");
            locked = sql;
          } catch {
            // The store holds a read lock here (inside its own read transaction): a reader that
            // already has its lock reads on, and no writer can take the file from it.
          }
        });
        let backups = 0;
        for (const readOnly of [false, true]) {
          for (const [name, call] of CALLS) {
            let met = 0;
            for (lockAt = 0; ; lockAt++) {
              const store = createStore(hooked.driver, f.file(), {
                host: target.host,
                readOnly,
                patience: { writeMs: BUDGET_MS },
              });
              const what = `${readOnly ? "read-only " : ""}${name} with the lock taken before its statement ${lockAt}`;
              step = 0;
              locked = undefined;
              armed = true;
              const error = await failure(() => call(store, f.file, backups++));
              armed = false;
              const reached = step > lockAt;
              if (locked !== undefined) {
                holder.exec("ROLLBACK");
                met++;
                assertWaitedThenBusy(error, `${what} (${locked})`);
                assert.equal(
                  await failure(() => call(store, f.file, backups++)),
                  undefined,
                  `${what}, again`,
                );
              } else {
                assert.equal(error, undefined, what);
              }
              store.close();
              if (!reached) break;
            }
            assert.ok(met > 0, `${name}: no statement of it met the lock`);
          }
        }
      },
    );

    fileTest(
      "a read-only store beside a hot rollback journal (a writer killed mid-transaction): checkIntegrity, ftsStatus, stats and backup wait their patience, then STORE_BUSY naming the journal; after a writable open rolled it back they answer",
      async (f) => {
        seedStore((options) => f.open(options));
        const path = f.file();
        const reader = f.open({ readOnly: true, patience: { writeMs: BUDGET_MS } });
        plantHotJournal(path, (p) => f.raw(p));
        assert.ok(statSync(`${path}-journal`).size > 0, "the planted journal is there");
        let n = 0;
        for (const [name, call] of CALLS) {
          const error = await failure(() => call(reader, f.file, n++));
          assertWaitedThenBusy(error, `${name} beside the hot journal`);
          assert.match(error?.message ?? "", /rollback journal/, name);
          assert.doesNotMatch(error?.message ?? "", /-shm/, `${name}: a DELETE store has no -shm to blame`);
        }
        // Any writable open rolls the journal back, and nothing of the dead transaction is left.
        f.open().close();
        assert.equal(existsSync(`${path}-journal`), false);
        for (const [name, call] of CALLS)
          assert.equal(
            await failure(() => call(reader, f.file, n++)),
            undefined,
            `${name} after the rollback`,
          );
        assert.deepEqual(reader.checkIntegrity(), { ok: true, problems: [] });
        assert.equal(reader.messageCount(), 20);
      },
    );
  });
}
