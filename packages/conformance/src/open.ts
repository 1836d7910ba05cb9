/** Conformance: opening, the fast path, schema reconcile and heal, read-only opens, journal policy. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createStore, isWalResetVulnerable, SqliteError, type Store } from "@sessiondb/core";
import { probeReadsTextWhole, SCHEMA_VERSION } from "@sessiondb/core/testing";
import {
  assert,
  type ConformanceTarget,
  type FileFixture,
  fileFixtureTest,
  fixtureTest,
  isAsyncTarget,
  recordingDriver,
  SAFE_SQLITE,
  scalar,
  throwsCode,
  throwsCodeSync,
} from "./harness.js";

const VULNERABLE = "3.50.4";

/** A store in WAL mode with one session "s", whatever the driver's SQLite (a vulnerable one
 * creates DELETE stores, so the mode is switched on a raw connection). */
function walStore(f: FileFixture): void {
  const store = f.open({ allowUnsafeWal: true });
  store.createSession({ id: "s", source: "cli" });
  store.close();
  const conn = f.raw();
  assert.equal(scalar(conn, "PRAGMA journal_mode = WAL"), "wal");
  conn.close();
}

export function openSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fixtureTest(target);
  const journalTest = fileFixtureTest(target, ["journal"]);

  describe("open", () => {
    journalTest(
      "a new store is created in WAL mode (DELETE on a vulnerable SQLite) with the schema fingerprint",
      ({ open, raw }) => {
        const store = open();
        assert.equal(store.journalMode, isWalResetVulnerable(store.sqliteVersion) ? "delete" : "wal");
        assert.equal(store.readOnly, false);
        assert.equal(store.driverName, target.driver.name);
        assert.match(store.sqliteVersion, /^3\.\d+\.\d+$/);
        assert.deepEqual(store.schemaWarnings, []);
        store.close();
        const conn = raw();
        assert.match(
          String(scalar(conn, "SELECT value FROM state_meta WHERE key = 'schema_fingerprint'")),
          /^v\d+-/,
        );
        assert.equal(
          scalar(conn, "SELECT value FROM state_meta WHERE key = 'schema_version'"),
          String(SCHEMA_VERSION),
        );
      },
    );

    test(
      "a reader that cannot write the -shm and meets the WAL index being rebuilt waits for it: no SCHEMA_OUTDATED, no STORE_READONLY",
      async ({ file, open }) => {
        // SQLite answers READONLY_RECOVERY / READONLY_CANTINIT to a connection without write
        // access to the -shm (another user's store, a read-only mount) that meets a writer
        // rebuilding the WAL index — about once in 10 000 opens under steady writes, on every
        // driver. It cannot be had on demand here (root writes any -shm), so the driver seam
        // gives it, in both forms the bindings use, once per statement named.
        const writer = await open();
        await writer.createSession({ id: "s", source: "cli" });
        await writer.appendMessage("s", { role: "user", content: "hello" });
        for (const extendedCode of [264, "SQLITE_READONLY_CANTINIT"]) {
          let faults: RegExp[] = [];
          const hooked = recordingDriver(target.driver, (sql) => {
            const at = faults.findIndex((pattern) => pattern.test(sql));
            if (at < 0) return;
            faults.splice(at, 1);
            throw new SqliteError("READONLY", "attempt to write a readonly database", { extendedCode });
          });
          // Two reads of a read-only open's schema probe.
          faults = [/FROM "state_meta" LIMIT 0/, /FROM "messages" LIMIT 0/];
          const reader = createStore(hooked.driver, file(), { host: target.host, readOnly: true });
          assert.deepEqual(faults, [], "the open met both faults");
          faults = [/count\(\*\)/];
          assert.equal(reader.messageCount(), 1);
          assert.deepEqual(faults, [], "the read met the fault");
          reader.close();
        }
        // One that never clears (a stale -shm on a read-only file system, no writer to rebuild
        // it) ends as STORE_BUSY after the patience, saying what to do.
        const stuck = recordingDriver(target.driver, (sql) => {
          if (/count\(\*\)/.test(sql)) {
            throw new SqliteError("READONLY", "attempt to write a readonly database", { extendedCode: 264 });
          }
        });
        const reader = createStore(stuck.driver, file(), {
          host: target.host,
          readOnly: true,
          patience: { writeMs: 300 },
        });
        const error = throwsCodeSync(() => reader.messageCount(), "STORE_BUSY");
        assert.match(error.message, /cannot write the store's -shm file/);
        reader.close();
        await writer.close();
      },
      ["driver-hooks"],
    );

    test(
      "opening a current store runs no DDL and takes no write lock",
      async ({ file, open, raw }) => {
        await (await open()).close();
        const recorder = recordingDriver(target.driver);
        createStore(recorder.driver, file(), { host: target.host }).close();
        const offending = recorder.statements.filter((sql) =>
          /\b(CREATE|ALTER|DROP|INSERT|UPDATE|DELETE|BEGIN|journal_mode\s*=)/i.test(sql),
        );
        assert.deepEqual(offending, []);
        assert.ok(recorder.statements.some((sql) => /FROM state_meta/i.test(sql)));
        // Once the driver's library facts are known, an open and a resume send four statements:
        // the connection pragmas (one exec), synchronous, the meta and journal-mode read, the read
        // — and a fifth on a binding that stops reading TEXT at a NUL: the store's mark that it
        // holds no such text, which lets the read skip the scan for it.
        const conn = raw();
        const cutsText = !probeReadsTextWhole(conn);
        conn.close();
        recorder.statements.length = 0;
        const store = createStore(recorder.driver, file(), { host: target.host });
        store.createSession({ id: "s", source: "cli" });
        store.appendMessage("s", { role: "user", content: "hello" });
        store.close();
        recorder.statements.length = 0;
        const again = createStore(recorder.driver, file(), { host: target.host });
        assert.deepEqual(
          again.getMessages("s", { last: 50 }).map((m) => m.content),
          ["hello"],
        );
        again.close();
        assert.equal(recorder.statements.length, cutsText ? 5 : 4, recorder.statements.join("\n"));
        assert.match(recorder.statements[0] ?? "", /^PRAGMA busy_timeout/);
        assert.match(recorder.statements[1] ?? "", /^PRAGMA synchronous = FULL$/);
        assert.match(recorder.statements[2] ?? "", /FROM state_meta .* pragma_journal_mode/s);
        assert.match(recorder.statements[3] ?? "", /FROM messages m\s+WHERE m\.session_id = \?/);
        if (cutsText) assert.match(recorder.statements[4] ?? "", /text_without_nul/);
      },
      ["driver-hooks"],
    );

    test(
      "the store and its WAL files are private (0600)",
      async ({ open, file }) => {
        assert.ok(target.host, "the conformance target needs a host to check file modes");
        const store = await open();
        await store.createSession({ id: "s", source: "cli" });
        assert.equal(target.host.stat(file())?.mode, 0o600);
        if (store.journalMode === "wal") {
          assert.equal(target.host.stat(`${file()}-wal`)?.mode, 0o600);
          assert.equal(target.host.stat(`${file()}-shm`)?.mode, 0o600);
        }
        await store.close();
        // A later writer recreates the WAL: SQLite gives it the database file's mode.
        const again = await open();
        await again.createSession({ id: "t", source: "cli" });
        if (again.journalMode === "wal") assert.equal(target.host.stat(`${file()}-wal`)?.mode, 0o600);
      },
      ["files"],
    );

    test("close is idempotent and later calls fail with STORE_CLOSED", async ({ open }) => {
      const store = await open();
      await store.close();
      await store.close();
      await throwsCode(() => store.createSession({ source: "cli" }), "STORE_CLOSED");
      await throwsCode(() => store.listSessions(), "STORE_CLOSED");
    });

    test(
      "a directory, a non-SQLite file and a missing read-only path get typed errors",
      async ({ open, file }) => {
        await throwsCode(() => open({}, file("")), "STORE_OPEN_FAILED");
        await throwsCode(() => open({ readOnly: true }, file("missing.db")), "STORE_OPEN_FAILED");
        const junk = file("junk.db");
        writeFileSync(junk, "this is not a database, it is a shopping list\n".repeat(200));
        await throwsCode(() => open({}, junk), "STORE_OPEN_FAILED");
        await throwsCode(() => open({ readOnly: true }, junk), "STORE_OPEN_FAILED");
        await throwsCode(() => open({}, file("no/such/dir/state.db")), "STORE_OPEN_FAILED");
      },
      ["files"],
    );
  });

  describe("read-only", () => {
    test("reads work, writes raise STORE_READONLY, and nothing is created", async ({ open }) => {
      const writer = await open();
      await writer.createSession({ id: "s", source: "cli" });
      await writer.appendMessage("s", { role: "user", content: "hello" });
      const reader = await open({ readOnly: true });
      assert.equal(reader.readOnly, true);
      assert.equal(await reader.messageCount("s"), 1);
      await throwsCode(() => reader.appendMessage("s", { role: "user", content: "no" }), "STORE_READONLY");
      await throwsCode(() => reader.createSession({ source: "cli" }), "STORE_READONLY");
      assert.equal(await writer.messageCount("s"), 1);
    });

    test("a read-only open where there is no store yet fails with STORE_OPEN_FAILED (noStore) and creates nothing", async ({
      open,
      file,
    }) => {
      // A fresh location: a missing file, or an empty server database.
      const fresh = file("fresh.db");
      const error = (await throwsCode(
        () => open({ readOnly: true }, fresh),
        "STORE_OPEN_FAILED",
      )) as Error & {
        noStore?: boolean;
      };
      assert.equal(error.noStore, true);
      assert.match(error.message, /no (sessiondb )?store/i);
      // Still nothing there: a writable open creates the store, and a reader opens it.
      const writer = await open({}, fresh);
      await writer.createSession({ id: "s", source: "cli" });
      await writer.close();
      const reader = await open({ readOnly: true }, fresh);
      assert.equal((await reader.getSession("s"))?.id, "s");
      await reader.close();
    });

    test(
      "a database without tables is no store either, another application's is refused; one with some of the store's tables is SCHEMA_OUTDATED",
      async ({ open, file, raw }) => {
        const empty = file("empty.db");
        writeFileSync(empty, "");
        const error = (await throwsCode(
          () => open({ readOnly: true }, empty),
          "STORE_OPEN_FAILED",
        )) as Error & {
          noStore?: boolean;
        };
        assert.equal(error.noStore, true);
        assert.equal(readFileSync(empty).length, 0);
        const foreign = file("foreign.db");
        const other = raw(foreign);
        other.exec("CREATE TABLE notes (body TEXT)");
        other.close();
        // Another application's database is not "no store yet": no open may create one there.
        const refused = (await throwsCode(() => open({ readOnly: true }, foreign), "STORE_OPEN_FAILED")) as {
          noStore?: boolean;
          message: string;
        };
        assert.equal(refused.noStore, false);
        assert.match(refused.message, /another application's database.*\(notes\)/);
        const partial = file("partial.db");
        const some = raw(partial);
        some.exec("CREATE TABLE sessions (id TEXT PRIMARY KEY)");
        some.close();
        await throwsCode(() => open({ readOnly: true }, partial), "SCHEMA_OUTDATED");
      },
      ["files"],
    );

    test("every open refuses another application's database, naming its tables, and changes nothing in it", async ({
      target,
      open,
      file,
      raw,
    }) => {
      const app = file("app.db");
      // The database comes from the target's engine (a server's is made by its first open), then
      // becomes another application's: the store's objects go, six tables of its own come.
      await (await open({}, app)).close();
      const conn = raw(app);
      conn.exec("PRAGMA foreign_keys = OFF");
      const objects = conn
        .prepare(
          "SELECT type, name FROM sqlite_master WHERE type IN ('view', 'table') AND name NOT LIKE 'sqlite_%' ORDER BY type = 'table'",
        )
        .all();
      // Views first; a dropped FTS table takes its shadow tables along.
      for (const { type, name } of objects)
        conn.exec(`DROP ${type === "view" ? "VIEW" : "TABLE"} IF EXISTS "${String(name)}"`);
      conn.exec(
        "PRAGMA user_version = 42; CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('https://x'); CREATE TABLE a1 (x); CREATE TABLE a2 (x); CREATE TABLE a3 (x); CREATE TABLE a4 (x); CREATE TABLE a5 (x)",
      );
      // A file of this process's own: in DELETE mode, as most applications keep theirs. A server's
      // engine owns its files and their mode.
      const ownFile = !isAsyncTarget(target);
      if (ownFile) assert.equal(scalar(conn, "PRAGMA journal_mode = DELETE"), "delete");
      conn.close();
      const before = ownFile ? readFileSync(app) : undefined;
      const siblings = () => ["-journal", "-wal", "-shm"].filter((suffix) => existsSync(`${app}${suffix}`));
      for (const readOnly of [false, true]) {
        const error = (await throwsCode(() => open({ readOnly }, app), "STORE_OPEN_FAILED")) as Error & {
          noStore?: boolean;
        };
        assert.equal(error.noStore, false, `readOnly: ${readOnly}`);
        // The first few tables by name, how many more, and where the store belongs instead.
        assert.match(error.message, /another application's database/);
        assert.match(error.message, /\(a1, a2, a3, a4, a5 and 1 more\)/);
        assert.match(error.message, /a database file of its own/);
        if (ownFile) {
          assert.deepEqual(readFileSync(app), before, "the database's bytes are unchanged");
          assert.deepEqual(siblings(), [], "no journal, -wal or -shm was left");
        }
      }
      const after = raw(app);
      if (ownFile) assert.equal(scalar(after, "PRAGMA journal_mode"), "delete");
      assert.equal(Number(scalar(after, "PRAGMA user_version")), 42);
      assert.deepEqual(
        after
          .prepare("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
          .all()
          .map((row) => row.name),
        ["a1", "a2", "a3", "a4", "a5", "moz_places"],
      );
      after.close();
    });

    test("a store with tables of the user's own still opens, writable and read-only", async ({
      open,
      raw,
    }) => {
      const created = await open();
      await created.createSession({ id: "s", source: "cli" });
      await created.close();
      const extended = raw();
      extended.exec("CREATE TABLE my_notes (body TEXT); INSERT INTO my_notes VALUES ('mine')");
      extended.close();
      const writer = await open();
      await writer.appendMessage("s", { role: "user", content: "still a store" });
      await writer.close();
      const reader = await open({ readOnly: true });
      assert.equal((await reader.getMessages("s"))[0]?.content, "still a store");
      await reader.close();
      const check = raw();
      assert.equal(scalar(check, "SELECT body FROM my_notes"), "mine");
      check.close();
    });

    test("a store behind the schema fails with SCHEMA_OUTDATED naming the column; a writable open heals it", async ({
      open,
      raw,
    }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      await store.appendMessage("s", { role: "user", content: "keep me" });
      await store.close();
      const conn = raw();
      conn.exec(
        "DROP TRIGGER IF EXISTS messages_fts_au; DROP TRIGGER IF EXISTS messages_fts_trigram_au; DROP TRIGGER IF EXISTS sessiondb_text_nul_messages_ai; DROP TRIGGER IF EXISTS sessiondb_text_nul_messages_au",
      );
      conn.exec("ALTER TABLE messages DROP COLUMN finish_reason");
      conn.exec("DELETE FROM state_meta WHERE key = 'schema_fingerprint'");
      conn.close();
      const error = await throwsCode(() => open({ readOnly: true }), "SCHEMA_OUTDATED");
      assert.match(error.message, /messages\.finish_reason/);
      const healed = await open();
      assert.equal((await healed.getMessages("s"))[0]?.content, "keep me");
      await healed.appendMessage("s", { role: "assistant", content: "done", finishReason: "stop" });
      await healed.close();
      assert.equal((await (await open({ readOnly: true })).getMessages("s"))[1]?.finishReason, "stop");
    });

    test("invalid UTF-8 in content still opens read-only and reads back with replacement characters", async ({
      open,
      raw,
    }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      await store.close();
      const conn = raw();
      conn.exec(
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', 'user', CAST(x'6f6b20c328ff20656e64' AS TEXT), 1)",
      );
      conn.close();
      const reader = await open({ readOnly: true });
      const content = (await reader.getMessages("s"))[0]?.content as string;
      assert.ok(content.startsWith("ok "));
      assert.ok(content.endsWith(" end"));
      assert.ok(content.includes("\uFFFD"));
    });

    test("a store written by a newer schema refuses writable opens and allows read-only", async ({
      open,
      raw,
    }) => {
      await (await open()).createSession({ id: "s", source: "cli" });
      const conn = raw();
      conn.exec(`UPDATE state_meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`);
      conn.close();
      const error = await throwsCode(() => open(), "SCHEMA_TOO_NEW");
      assert.match(error.message, /readOnly/);
      assert.equal((await (await open({ readOnly: true })).getSession("s"))?.id, "s");
    });
  });

  describe("schema reconcile", () => {
    test("a primary-key change is healed by a rebuild that keeps every row (orphans included)", async ({
      open,
      raw,
    }) => {
      await (await open()).close();
      const conn = raw();
      conn.exec("DROP TABLE session_model_usage");
      conn.exec(`CREATE TABLE session_model_usage (session_id TEXT, model TEXT, input_tokens INTEGER,
                 PRIMARY KEY (session_id, model))`);
      conn.exec("INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 1)");
      conn.exec("INSERT INTO session_model_usage VALUES ('s', 'm', 5), ('orphan', 'm', 7)");
      conn.exec("DELETE FROM state_meta WHERE key = 'schema_fingerprint'");
      conn.close();
      const store = await open();
      assert.deepEqual(store.schemaWarnings, []);
      const rows = await store.getUsage("s");
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.inputTokens, 5);
      assert.equal(rows[0]?.provider, "");
      await store.recordUsage("s", { model: "m", provider: "p", inputTokens: 1 });
      assert.equal((await store.getUsage("s")).length, 2);
      await store.close();
      const check = raw();
      assert.equal(scalar(check, "SELECT count(*) FROM session_model_usage WHERE session_id = 'orphan'"), 1);
      const pk = check
        .prepare("PRAGMA table_info(session_model_usage)")
        .all()
        .filter((c) => Number(c.pk) > 0).length;
      assert.equal(pk, 6);
    });

    test("a messages table without AUTOINCREMENT is healed with its rows, views, triggers and index intact", async ({
      open,
      raw,
    }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      await store.appendMessages("s", [
        { role: "user", content: "the flamingo migration" },
        { role: "assistant", content: "done" },
      ]);
      await store.close();
      // The same columns, keyed without AUTOINCREMENT: an older shape the heal rebuilds. The FTS
      // source views name `messages`, so the rebuild must not rename a table into place.
      const conn = raw();
      conn.exec("PRAGMA foreign_keys = OFF");
      // Legacy rename: the views and triggers keep naming `messages`, as in a store that had it.
      conn.exec("PRAGMA legacy_alter_table = ON");
      const sql = String(scalar(conn, "SELECT sql FROM sqlite_master WHERE name = 'messages'"));
      conn.exec("ALTER TABLE messages RENAME TO messages_before");
      conn.exec(sql.replace(/\bAUTOINCREMENT\b/i, "").replace(/"?messages"?\s*\(/, "messages ("));
      conn.exec("INSERT INTO messages SELECT * FROM messages_before");
      conn.exec("DROP TABLE messages_before");
      conn.exec("DELETE FROM state_meta WHERE key = 'schema_fingerprint'");
      assert.doesNotMatch(
        String(scalar(conn, "SELECT sql FROM sqlite_master WHERE name = 'messages'")),
        /AUTOINCREMENT/i,
      );
      conn.close();
      const healed = await open();
      assert.deepEqual(healed.schemaWarnings, []);
      assert.deepEqual(
        (await healed.getMessages("s")).map((m) => m.content),
        ["the flamingo migration", "done"],
      );
      const id = await healed.appendMessage("s", { role: "user", content: "another flamingo" });
      assert.ok(id > 2);
      assert.equal((await healed.search("flamingo")).hits.length, 2);
      await healed.close();
      const check = raw();
      assert.match(
        String(scalar(check, "SELECT sql FROM sqlite_master WHERE name = 'messages'")),
        /AUTOINCREMENT/i,
      );
      assert.equal(scalar(check, "SELECT count(*) FROM sqlite_master WHERE name LIKE '%sessiondb_heal%'"), 0);
      assert.equal(scalar(check, "SELECT count(*) FROM messages"), 3);
    });

    test("missing columns are added and the data migration recounts session counters", async ({
      open,
      raw,
    }) => {
      const store = await open();
      await store.createSession({ id: "s", source: "cli" });
      await store.appendMessages("s", [
        { role: "user", content: "a" },
        { role: "assistant", content: "b", toolCalls: [{ id: 1 }, { id: 2 }] },
      ]);
      await store.close();
      const conn = raw();
      conn.exec("ALTER TABLE sessions DROP COLUMN tool_call_count");
      conn.exec("UPDATE sessions SET message_count = 0");
      conn.exec("DELETE FROM state_meta WHERE key IN ('schema_fingerprint', 'schema_version')");
      conn.close();
      const healed = await open();
      const session = await healed.getSession("s");
      assert.equal(session?.messageCount, 2);
      assert.equal(session?.toolCallCount, 2);
    });
  });

  describe("corruption", () => {
    test("structural corruption makes the store sticky read-only with STORE_CORRUPT", async ({
      open,
      raw,
      file,
    }) => {
      const store = await open({ journalMode: "delete" });
      await store.createSession({ id: "s", source: "cli" });
      for (let i = 0; i < 40; i++)
        await store.appendMessage("s", { role: "user", content: `row ${i} ${"x".repeat(2000)}` });
      await store.close();
      const conn = raw();
      conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      const root = Number(
        scalar(conn, "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = 'messages'"),
      );
      const pageSize = Number(scalar(conn, "PRAGMA page_size"));
      conn.close();
      const bytes = readFileSync(file());
      for (let i = 0; i < pageSize; i++) bytes[(root - 1) * pageSize + i] = (i * 37 + 11) & 0xff;
      writeFileSync(file(), bytes);
      const damaged = await open({ repairFtsOnOpen: false });
      await throwsCode(() => damaged.getMessages("s"), "STORE_CORRUPT");
      // Sticky: later writes are refused before they touch the file.
      await throwsCode(() => damaged.createSession({ id: "t", source: "cli" }), "STORE_CORRUPT");
      await throwsCode(() => damaged.appendMessage("s", { role: "user", content: "more" }), "STORE_CORRUPT");
      assert.equal((await damaged.getSession("s"))?.id, "s", "what is readable stays readable");
      assert.equal((await damaged.checkIntegrity()).ok, false);
    });
  });

  describe("journal policy", () => {
    journalTest("on a WAL-reset-vulnerable SQLite a new store stays in DELETE mode", ({ open }) => {
      const store = open({ sqliteVersion: VULNERABLE });
      assert.equal(store.journalMode, "delete");
      store.createSession({ id: "s", source: "cli" });
      store.close();
      assert.equal(open({ sqliteVersion: VULNERABLE }).journalMode, "delete");
    });

    journalTest(
      "a vulnerable SQLite refuses a WAL store writable, allows it read-only or with the opt-in",
      (f) => {
        walStore(f);
        throwsCodeSync(() => f.open({ sqliteVersion: VULNERABLE }), "UNSAFE_SQLITE");
        assert.equal(f.open({ sqliteVersion: VULNERABLE, readOnly: true }).getSession("s")?.id, "s");
        const optedIn = f.open({ sqliteVersion: VULNERABLE, allowUnsafeWal: true });
        assert.equal(optedIn.journalMode, "wal");
      },
    );

    journalTest("an on-disk WAL store is never downgraded, even when DELETE is asked for", (f) => {
      walStore(f);
      assert.equal(f.open({ journalMode: "delete", allowUnsafeWal: true }).journalMode, "wal");
    });

    // Two processes creating one store at once: a sibling connection holds a read transaction
    // (a real SHARED lock) exactly while the creator's switch to WAL runs, on the switches
    // `blocks` picks. SAFE_SQLITE is pinned so the policy wants WAL whatever SQLite the driver has.
    const createBesideReader = (f: FileFixture, blocks: (switchNumber: number) => boolean) => {
      const sibling = f.raw();
      let switches = 0;
      let holding = false;
      const hooked = recordingDriver(target.driver, (sql) => {
        if (holding) {
          sibling.exec("COMMIT");
          holding = false;
        }
        if (/^PRAGMA journal_mode = wal$/i.test(sql) && blocks(++switches)) {
          sibling.exec("BEGIN");
          scalar(sibling, "SELECT count(*) FROM sqlite_master");
          holding = true;
        }
      });
      const store = createStore(hooked.driver, f.file(), { host: target.host, sqliteVersion: SAFE_SQLITE });
      return { store, switches };
    };
    journalTest(
      "an opener connected before a sibling created the store reports the mode the sibling chose",
      (f) => {
        let sibling: Store | undefined;
        const hooked = recordingDriver(target.driver, (sql) => {
          // The sibling creates the whole store after we connected, before we look at it.
          if (!sibling && /\bstate_meta\b/.test(sql)) sibling = f.open({ sqliteVersion: SAFE_SQLITE });
        });
        const late = createStore(hooked.driver, f.file(), { host: target.host, sqliteVersion: SAFE_SQLITE });
        assert.ok(sibling, "the sibling ran inside our open");
        assert.equal(sibling.journalMode, "wal");
        assert.equal(late.journalMode, "wal");
        late.close();
      },
    );

    const fingerprints = (f: FileFixture) =>
      scalar(f.raw(), "SELECT count(*) FROM state_meta WHERE key = 'schema_fingerprint'");

    journalTest(
      "a sibling reading during creation defers the WAL switch; the creator switches after its commit",
      (f) => {
        const { store, switches } = createBesideReader(f, (n) => n === 1);
        assert.equal(switches, 2, "the switch was tried again after the commit");
        assert.equal(store.journalMode, "wal");
        store.close();
        assert.equal(scalar(f.raw(), "PRAGMA journal_mode"), "wal");
      },
    );

    journalTest(
      "a creator that loses every switch reports DELETE, and the next open switches the store",
      (f) => {
        const { store, switches } = createBesideReader(f, () => true);
        assert.equal(switches, 2);
        assert.equal(store.journalMode, "delete", "the truth: the file was not switched");
        store.createSession({ id: "s", source: "cli" });
        store.close();
        assert.equal(fingerprints(f), 0, "a store still owed its switch is not marked current");
        const next = f.open({ sqliteVersion: SAFE_SQLITE });
        assert.equal(next.journalMode, "wal");
        assert.equal(next.getSession("s")?.id, "s");
        next.close();
        assert.equal(fingerprints(f), 1);
        assert.equal(scalar(f.raw(), "PRAGMA journal_mode"), "wal");
      },
    );
  });

  describe("read patience", () => {
    test(
      "a read-only open of a DELETE-mode store a live writer holds mid-transaction waits, then STORE_BUSY without blaming a journal left behind",
      async ({ open, raw, file }) => {
        const store = await open({ journalMode: "delete" });
        await store.createSession({ id: "s", source: "cli" });
        await store.close();
        // A live writer mid-transaction: its journal is beside the store, as a dead writer's would be.
        const writer = raw();
        writer.exec("BEGIN EXCLUSIVE");
        writer.exec("UPDATE sessions SET title = 'uncommitted' WHERE id = 's'");
        assert.ok(readFileSync(`${file()}-journal`).length > 0, "the writer's journal is there");
        const started = Date.now();
        const error = await throwsCode(
          () => open({ readOnly: true, patience: { openMs: 300 } }),
          "STORE_BUSY",
        );
        const waited = Date.now() - started;
        assert.ok(waited >= 250, `gave up after ${waited} ms`);
        assert.match(error.message, /retry later/);
        assert.doesNotMatch(
          error.message,
          /rollback journal|stopped mid-transaction|open the store writable/,
        );
        writer.exec("ROLLBACK");
        const reader = await open({ readOnly: true });
        assert.equal((await reader.getSession("s"))?.title ?? null, null);
        await reader.close();
      },
      ["journal"],
    );
  });

  describe("write patience", () => {
    test("a write blocked past its budget raises STORE_BUSY; stored data is intact", async ({
      open,
      raw,
    }) => {
      const store = await open({ patience: { writeMs: 300, appendMs: 300 } });
      await store.createSession({ id: "s", source: "cli" });
      await store.appendMessage("s", { role: "user", content: "before" });
      const blocker = raw();
      blocker.exec("BEGIN IMMEDIATE");
      const started = Date.now();
      const error = await throwsCode(
        () => store.appendMessage("s", { role: "user", content: "blocked" }),
        "STORE_BUSY",
      );
      const waited = Date.now() - started;
      assert.ok(waited >= 250, `gave up after ${waited} ms`);
      assert.ok(waited < 5000, `waited ${waited} ms`);
      assert.match(error.message, /intact/);
      blocker.exec("ROLLBACK");
      await store.appendMessage("s", { role: "user", content: "after" });
      assert.deepEqual(
        (await store.getMessages("s")).map((m) => m.content),
        ["before", "after"],
      );
    });
  });
}
