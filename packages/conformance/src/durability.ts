/**
 * Conformance: the `durability` option. "normal" relaxes the writer's `synchronous` to NORMAL in
 * WAL mode only; every other open commits with FULL. Checked on the store's own connection (the
 * pragma is per connection), so a binding that ignored it would fail here. That `kill -9` loses
 * no acknowledged append under it is the torture chamber's (packages/e2e, `kill9-normal`).
 */
import { existsSync } from "node:fs";
import { createStore, type Store, type StoreOptions } from "@sessiondb/core";
import type { SqliteConnection, SqliteDriver } from "@sessiondb/core/driver";
import {
  assert,
  type ConformanceTarget,
  type FileFixture,
  fileFixtureTest,
  SAFE_SQLITE,
  scalar,
  throwsCodeSync,
} from "./harness.js";

/** SQLite's `PRAGMA synchronous` numbers. */
const NORMAL = 1;
const FULL = 2;

export function durabilitySuite(target: ConformanceTarget): void {
  const journalTest = fileFixtureTest(target, ["journal"]);

  /** A store opened through a driver that keeps the store's connection (its first: probes of the
   * binding's facts open and close their own), to ask that connection. */
  const openKept = (f: FileFixture, options: StoreOptions): { store: Store; conn: SqliteConnection } => {
    let conn: SqliteConnection | undefined;
    const keeping: SqliteDriver = {
      name: target.driver.name,
      open(path, flags) {
        const opened = target.driver.open(path, flags);
        conn ??= opened;
        return opened;
      },
    };
    const store = createStore(keeping, f.file(), { host: target.host, ...options });
    assert.ok(conn, "the store opened a connection");
    return { store, conn };
  };

  target.describe("durability", () => {
    journalTest("by default every commit is fsynced (synchronous FULL), in WAL mode too", (f) => {
      const { store, conn } = openKept(f, { sqliteVersion: SAFE_SQLITE });
      assert.equal(store.journalMode, "wal");
      assert.equal(store.durability, "full");
      assert.equal(scalar(conn, "PRAGMA synchronous"), FULL);
      store.close();
    });

    journalTest('durability "normal" on a WAL store commits with synchronous NORMAL', (f) => {
      const { store, conn } = openKept(f, { sqliteVersion: SAFE_SQLITE, durability: "normal" });
      assert.equal(store.journalMode, "wal");
      assert.equal(store.durability, "normal");
      assert.equal(scalar(conn, "PRAGMA synchronous"), NORMAL);
      store.createSession({ id: "s", source: "cli" });
      store.appendMessages("s", [
        { role: "user", content: "hello" },
        { role: "assistant", content: "hi" },
      ]);
      store.close();
      const again = f.open({ sqliteVersion: SAFE_SQLITE });
      assert.deepEqual(
        again.getMessages("s").map((m) => m.content),
        ["hello", "hi"],
      );
    });

    journalTest('durability "normal" keeps FULL in DELETE mode, where NORMAL could corrupt the file', (f) => {
      const { store, conn } = openKept(f, {
        sqliteVersion: SAFE_SQLITE,
        journalMode: "delete",
        durability: "normal",
      });
      assert.equal(store.journalMode, "delete");
      assert.equal(store.durability, "full");
      assert.equal(scalar(conn, "PRAGMA synchronous"), FULL);
      store.close();
    });

    journalTest('a read-only store reports "full": it commits nothing', (f) => {
      f.open({ sqliteVersion: SAFE_SQLITE }).close();
      const reader = f.open({ readOnly: true, durability: "normal" });
      assert.equal(reader.durability, "full");
    });

    journalTest("an unknown durability is refused, naming the option, and creates nothing", (f) => {
      for (const durability of ["off", "NORMAL", 1, true]) {
        const error = throwsCodeSync(
          () => f.open({ durability: durability as StoreOptions["durability"] }),
          "INVALID_INPUT",
        );
        assert.equal((error as Error & { field?: string }).field, "openStore.durability");
        assert.match(error.message, /full, normal/);
      }
      assert.equal(existsSync(f.file()), false);
    });
  });
}
