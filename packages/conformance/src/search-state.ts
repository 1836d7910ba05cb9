/**
 * Conformance: a search reads the index state as it is now. Between two searches of one store,
 * another connection to the file drops or rebuilds an index, detaches it, starts a backfill or
 * replaces its projection — and the next search routes by what it did. A store may keep the
 * state between searches only while nothing changed (core's engine/unchanged-reads.ts): each
 * case here fails if a search is answered from a state read before the change.
 */
import type { StoreOptions } from "@sessiondb/core";
import { assert, type ConformanceTarget, type FileFixture, fileFixtureTest, SAFE_SQLITE } from "./harness.js";

type Store = ReturnType<FileFixture["open"]>;
type Conn = ReturnType<FileFixture["raw"]>;

/** Three word hits ("flamingo"), one substring hit ("amingo wea"). */
function seed(store: Store): void {
  store.createSession({ id: "s", source: "cli" });
  store.appendMessages("s", [
    { role: "user", content: "Why does the flamingo build fail?", timestamp: 100 },
    { role: "assistant", content: "The flamingo step needs Node 20.", timestamp: 101 },
    { role: "assistant", content: "flamingo weather: sunny", timestamp: 102 },
  ]);
}

/** What the store answers now: the word search's route and hits, the substring search's route,
 * and the status. */
function seen(store: Store): { word: string; hits: number; substring: string; state: string } {
  const word = store.search("flamingo");
  return {
    word: word.route,
    hits: word.hits.length,
    substring: store.search("amingo wea", { substring: true }).route,
    state: store.ftsStatus().state,
  };
}

/** Run `sql` on its own connection to the store's file, then close it. */
function onOtherConnection(f: FileFixture, ...sql: string[]): void {
  const conn: Conn = f.raw();
  try {
    for (const statement of sql) conn.exec(statement);
  } finally {
    conn.close();
  }
}

/** The SQL of `name` as sqlite_master keeps it. */
function storedSql(f: FileFixture, name: string): string {
  const conn: Conn = f.raw();
  try {
    return String(conn.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(name)?.sql);
  } finally {
    conn.close();
  }
}

const JOURNALS: ReadonlyArray<readonly [string, StoreOptions]> = [
  ["WAL", { sqliteVersion: SAFE_SQLITE }],
  ["a rollback journal", { journalMode: "delete" }],
];

export function searchStateSuite(target: ConformanceTarget): void {
  // Needs the store's file beside it: the other connection opens it with the target's driver.
  const test = fileFixtureTest(target, ["files"]);

  target.describe("search state between searches", () => {
    for (const [journal, options] of JOURNALS) {
      test(`${journal}: what another connection does to the index between two searches, the next one sees`, async (f) => {
        const store = f.open(options);
        seed(store);
        const ready = { word: "fts", hits: 3, substring: "trigram", state: "ready" };
        const trigram = seen(store).substring;
        // An SQLite without the trigram tokenizer (or one that stops at a NUL) reads substrings by
        // LIKE throughout; every other step is the same.
        if (trigram === "like") ready.substring = "like";
        assert.deepEqual(seen(store), ready);
        assert.deepEqual(seen(store), ready, "a second search of an unchanged store answers the same");

        // A trigger dropped: the index misses new rows, so it is not trusted.
        onOtherConnection(f, "DROP TRIGGER messages_fts_ai");
        assert.deepEqual(seen(store), { word: "like", hits: 3, substring: "like", state: "stale" });

        // Another store rebuilds it.
        const sibling = f.open(options);
        assert.equal(sibling.rebuildFts().rebuilt, true);
        assert.deepEqual(seen(store), ready);

        // Detached by another connection's breadcrumb alone (no schema change), then cleared.
        onOtherConnection(f, "INSERT INTO state_meta(key, value) VALUES ('fts_stale', 'detached by a test')");
        assert.deepEqual(seen(store), { word: "like", hits: 3, substring: "like", state: "stale" });
        onOtherConnection(f, "DELETE FROM state_meta WHERE key = 'fts_stale'");
        assert.deepEqual(seen(store), ready);

        // A backfill another store starts: the index is emptied, its window topped up by LIKE.
        sibling.startFtsBackfill();
        assert.deepEqual(seen(store), {
          word: "fts+like",
          hits: 3,
          substring: ready.substring === "trigram" ? "fts+like" : "like",
          state: "backfilling",
        });
        await sibling.backfillFts();
        assert.deepEqual(seen(store), ready);
        sibling.close();

        // The view replaced with one this build does not know (a newer build's migration).
        const view = storedSql(f, "messages_fts_src");
        const newer = view.replaceAll(", 1, 8192)", ", 1, 4096)");
        assert.notEqual(newer, view, "the view bounds its text at 8192 characters");
        onOtherConnection(f, "DROP VIEW messages_fts_src", newer);
        assert.equal(seen(store).word, "like");
        assert.equal(store.ftsStatus().state, "stale");
        assert.equal(store.rebuildFts().rebuilt, true);
        assert.deepEqual(seen(store), ready);

        // The trigram index dropped: substring searches scan, word searches keep their index.
        if (ready.substring === "trigram") {
          onOtherConnection(f, "DROP TABLE messages_fts_trigram");
          assert.deepEqual(seen(store), { ...ready, substring: "like" });
        }
        store.close();
      });
    }

    test("a read-only store sees another store's detach and rebuild at its next search", (f) => {
      const writer = f.open({ sqliteVersion: SAFE_SQLITE });
      seed(writer);
      const reader = f.open({ sqliteVersion: SAFE_SQLITE, readOnly: true });
      assert.equal(reader.search("flamingo").route, "fts");
      onOtherConnection(f, "DROP TRIGGER messages_fts_ad");
      assert.equal(reader.search("flamingo").route, "like");
      assert.equal(writer.rebuildFts().rebuilt, true);
      assert.equal(reader.search("flamingo").route, "fts");
      reader.close();
      writer.close();
    });

    test("the store's own changes to the index state show at its next search", async (f) => {
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      seed(store);
      assert.equal(store.search("flamingo").route, "fts");
      store.startFtsBackfill();
      assert.equal(store.search("flamingo").route, "fts+like");
      assert.equal(store.ftsStatus().state, "backfilling");
      // The backfill's end changes state_meta rows only, no schema.
      await store.backfillFts();
      assert.equal(store.search("flamingo").route, "fts");
      assert.equal(store.ftsStatus().state, "ready");
      store.startFtsBackfill();
      assert.equal(store.search("flamingo").route, "fts+like");
      assert.equal(store.rebuildFts().rebuilt, true);
      assert.equal(store.search("flamingo").route, "fts");
      // Inside a transaction of its own, after a write of the same transaction.
      store.transaction(() => {
        store.appendMessage("s", { role: "user", content: "one more flamingo" });
        assert.equal(store.search("flamingo").hits.length, 4);
        assert.equal(store.search("flamingo").route, "fts");
      });
      store.close();
    });
  });
}
