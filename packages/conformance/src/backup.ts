/**
 * Conformance: `store.backup(dest)`. A backup taken while another process appends holds exactly
 * a prefix of that process's acknowledged appends, whole rows only, and restores to a working
 * store with a ready index; refused destinations (the store, a companion, a symlink to the
 * store, an existing file) fail with a code and leave nothing behind; copies are 0600.
 */
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { BackupDestinationError, type Host, type Store, StoreBusyError } from "@sessiondb/core";
import { STORE_FILE_MODE } from "@sessiondb/core/testing";
import { ackedCount, appendedContent, holdAppender, waitForAcks } from "./appender.js";
import {
  assert,
  type ConformanceTarget,
  type FileFixture,
  fileFixtureTest,
  inFolder,
  SAFE_SQLITE,
} from "./harness.js";

/** Enough rows that the copy takes a while (several MB with the index). */
const SEED_ROWS = 3000;

function seed(store: Store, rows = SEED_ROWS): void {
  store.createSession({ id: "seed", source: "test" });
  const batch = Array.from({ length: rows }, (_, n) => ({
    role: "assistant" as const,
    content: `seed row ${n} needle${n % 97} ${"lorem ipsum dolor sit amet ".repeat(20)}`,
  }));
  store.appendMessages("seed", batch);
}

/** Rows that make the store ~19 MB (~4 700 pages of 4 KB: more than four online-backup steps of
 * 1024 pages), as 12 000 indexed rows of prose do, at a twentieth of their CPU: a tool output is
 * indexed by its prefix only, so most of these pages are overflow pages no index reads. The
 * backup copies pages, whatever they hold. */
const BULK_ROWS = 240;
function seedBulk(store: Store): void {
  store.createSession({ id: "seed", source: "test" });
  const filler = "lorem ipsum dolor sit amet ".repeat(3000);
  store.appendMessages(
    "seed",
    Array.from({ length: BULK_ROWS }, (_, n) => ({
      role: "tool" as const,
      toolName: "bash",
      content: `seed row ${n} ${filler}`,
    })),
  );
}

/** Files in the fixture folder, to check that a refused backup wrote nothing. */
function listing(f: FileFixture): string[] {
  return readdirSync(dirname(f.file())).sort();
}

/** Rejects with a BackupDestinationError carrying `reason` (and returns it). */
async function refused(promise: Promise<unknown>, reason: string): Promise<BackupDestinationError> {
  const error = await promise.then(
    () => assert.fail(`the backup was expected to be refused (${reason})`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof BackupDestinationError, `wrong error: ${String(error)}`);
  assert.equal(error.code, "BACKUP_DESTINATION_REFUSED");
  assert.equal(error.reason, reason);
  return error;
}

/** The target's host, recording how the backup flushes its copy (holdFile, flushInBackground). */
function flushRecorder(host: Host): { host: Host; log: string[] } {
  const log: string[] = [];
  const holdFile = host.holdFile?.bind(host);
  const flushInBackground = host.flushInBackground?.bind(host);
  const recording: Host = Object.assign(Object.create(host) as Host, {
    flushInBackground: flushInBackground
      ? async (path: string, everyMs: number) => {
          log.push(`background ${path}`);
          const flusher = await flushInBackground(path, everyMs);
          return {
            stop: async () => {
              const flushes = await flusher.stop();
              log.push(`stopped after ${flushes > 0 ? "some" : "no"} flushes`);
              return flushes;
            },
          };
        }
      : undefined,
    holdFile: holdFile
      ? (path: string) => {
          log.push(`hold ${path}`);
          const held = holdFile(path);
          return {
            sync: () => {
              log.push("sync");
              held.sync();
            },
            close: () => {
              log.push("close");
              held.close();
            },
          };
        }
      : undefined,
  });
  return { host: recording, log };
}

export function backupSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fileFixtureTest(target);

  describe("backup", () => {
    test("a backup taken while another process appends holds a prefix of its acked appends and restores to a working store", async (f) => {
      const appender = target.appender;
      if (!appender) {
        console.log(
          `[conformance] ${target.name}: skipped "backup under a child appender": the target has no appender`,
        );
        return;
      }
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      seed(store);
      const ledger = f.file("ledger.txt");
      const child = await appender({ path: f.file(), sessionId: "child", ledger });
      let before: number;
      let after: number;
      let result: Awaited<ReturnType<Store["backup"]>>;
      try {
        before = ackedCount(ledger);
        result = await store.backup(f.file("backup.db"));
        after = ackedCount(ledger);
      } finally {
        await child.stop();
      }
      // The child was appending before the backup began and went on after it ended.
      assert.ok(
        before >= 1 && after > before,
        `the child did not append across the backup (${before} → ${after})`,
      );
      assert.equal(result.path, f.file("backup.db"));
      assert.equal(result.journalMode, "wal");
      assert.equal(statSync(f.file("backup.db")).mode & 0o777, STORE_FILE_MODE);
      assert.deepEqual(
        listing(f).filter((name) => name.startsWith("backup.db")),
        ["backup.db"],
        "temporary files or journals were left beside the backup",
      );

      const copy = f.open({ readOnly: true }, f.file("backup.db"));
      const rows = copy.getMessages("child", { limit: 1_000_000 });
      // Everything acknowledged before the backup began is in it, in order, whole; nothing the
      // child had not yet committed is.
      const finalAcked = ackedCount(ledger);
      assert.ok(
        rows.length >= before,
        `backup holds ${rows.length} rows, but ${before} were acked before it began`,
      );
      assert.ok(
        rows.length <= finalAcked + 1,
        `backup holds ${rows.length} rows, more than the ${finalAcked} acked (+1 in flight)`,
      );
      for (const [n, row] of rows.entries()) {
        assert.equal(row.content, appendedContent("child", n), `row ${n} is torn or out of order`);
      }
      assert.equal(copy.messageCount("seed"), SEED_ROWS);
      assert.deepEqual(copy.checkIntegrity(), { ok: true, problems: [] });
      assert.equal(copy.ftsStatus().state, "ready");
      assert.equal(result.fts?.state, "ready");
      assert.deepEqual(result.notes, []);
      copy.close();

      // Restore: the backup is a closed file, so copying it is safe; the result is a working store.
      copyFileSync(f.file("backup.db"), f.file("restored.db"));
      const restored = f.open({ sqliteVersion: SAFE_SQLITE }, f.file("restored.db"));
      const id = restored.appendMessage("child", { role: "user", content: "after restore zebrafish" });
      assert.equal(restored.search("zebrafish").hits[0]?.messageId, id);
      assert.equal(restored.search("needle42").route, "fts");
      assert.ok(restored.search("needle42").hits.length > 0);
      assert.deepEqual(restored.checkIntegrity(), { ok: true, problems: [] });
    });

    test("a backup of a WAL store flushes its copy as it is written (after every online-backup step; from a worker thread during VACUUM INTO), never in DELETE mode", async (f) => {
      assert.ok(target.host, "the backup suite needs the target's host");
      const recorded = flushRecorder(target.host);
      // A version without the WAL-reset bug, so the store is in WAL mode on every library.
      const store = f.open({ host: recorded.host, sqliteVersion: SAFE_SQLITE });
      seedBulk(store);
      const copying: number[] = [];
      const result = await store.backup(f.file("copy.db"), {
        onProgress: (progress) => {
          if (progress.phase === "copying" && progress.copiedPages !== undefined)
            copying.push(progress.copiedPages);
        },
      });
      assert.equal(result.journalMode, "wal");
      if (result.method === "vacuum-into") {
        // One statement, no steps: a worker thread flushes the copy while it is written, and
        // once more when stopped (so at least once), before the copy is opened again.
        assert.ok(recorded.log[0]?.startsWith(`background ${f.file("copy.db")}.tmp-`), recorded.log[0]);
        assert.deepEqual(recorded.log.slice(1), ["stopped after some flushes"]);
      } else {
        assert.ok(copying.length >= 3, `${copying.length} steps`);
        // The temporary copy, never the store or the destination's final name.
        assert.ok(recorded.log[0]?.startsWith(`hold ${f.file("copy.db")}.tmp-`), recorded.log[0]);
        assert.deepEqual(recorded.log.slice(1), [...copying.map(() => "sync"), "close"]);
      }
      store.close();
      const copy = f.open({ readOnly: true }, f.file("copy.db"));
      assert.equal(copy.messageCount(), BULK_ROWS);
      assert.deepEqual(copy.checkIntegrity(), { ok: true, problems: [] });
      copy.close();

      recorded.log.length = 0;
      const deleteMode = f.open({ host: recorded.host, journalMode: "delete" }, f.file("delete.db"));
      seed(deleteMode, 200);
      await deleteMode.backup(f.file("delete-copy.db"));
      // DELETE mode: the copy's read lock keeps writers out anyway, so it is not slowed by flushes.
      assert.deepEqual(
        recorded.log.filter((entry) => entry === "sync" || entry.startsWith("background")),
        [],
      );
    });

    test("a DELETE-mode store backs up to a DELETE-mode copy; a read-only store backs up too", async (f) => {
      const writer = f.open({ journalMode: "delete" });
      seed(writer, 200);
      writer.close();
      const reader = f.open({ readOnly: true });
      const result = await reader.backup(f.file("copy.db"));
      assert.equal(result.journalMode, "delete");
      assert.equal(result.fts?.state, "ready");
      assert.ok(result.bytes > 0 && result.bytes === statSync(f.file("copy.db")).size);
      assert.equal(statSync(f.file("copy.db")).mode & 0o777, STORE_FILE_MODE);
      const copy = f.open({ readOnly: true }, f.file("copy.db"));
      assert.equal(copy.journalMode, "delete");
      assert.equal(copy.messageCount(), 200);
      assert.deepEqual(copy.checkIntegrity(), { ok: true, problems: [] });
    });

    test("a DELETE-mode backup waits for a writer's exclusive lock with read patience, then copies everything; out of patience it is STORE_BUSY with nothing written", async (f) => {
      const store = f.open({ journalMode: "delete", patience: { writeMs: 300 } });
      seed(store, 200);
      const files = listing(f);
      const holder = f.raw();
      holder.exec("BEGIN EXCLUSIVE");
      holder.exec("DELETE FROM messages WHERE 0");
      try {
        const error = await store.backup(f.file("locked.db")).then(
          () => assert.fail("a backup of an exclusively locked store cannot succeed"),
          (caught: unknown) => caught,
        );
        assert.ok(error instanceof StoreBusyError, `wrong error: ${String(error)}`);
        assert.deepEqual(listing(f), files, "a refused backup left a file behind");
      } finally {
        holder.exec("ROLLBACK");
      }
      const result = await store.backup(f.file("copy.db"));
      assert.equal(result.journalMode, "delete");
      const copy = f.open({ readOnly: true }, f.file("copy.db"));
      assert.equal(copy.messageCount(), 200);
      assert.deepEqual(copy.checkIntegrity(), { ok: true, problems: [] });
    });

    test("the store, its companions, a symlink to it and an existing file are refused with nothing written", async (f) => {
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      seed(store, 50);
      writeFileSync(f.file("taken.db"), "keep me");
      symlinkSync(f.file(), f.file("link.db"));
      const files = listing(f);
      const storeBytes = readFileSync(f.file());
      await refused(store.backup(f.file()), "is-store");
      await refused(store.backup(f.file("state.db-wal")), "is-store");
      await refused(store.backup(f.file("state.db-shm")), "is-store");
      await refused(store.backup(f.file("state.db-journal")), "is-store");
      await refused(store.backup(f.file("state.db.fts-rebuild.lock")), "is-store");
      await refused(store.backup(f.file("state.db.fts-rebuild.lock.holder.json")), "is-store");
      await refused(store.backup(f.file("link.db"), { overwrite: true }), "is-store");
      await refused(store.backup(`${dirname(f.file())}/./state.db`, { overwrite: true }), "is-store");
      await refused(store.backup(f.file("taken.db")), "exists");
      await refused(store.backup(f.file("no/such/folder.db")), "no-folder");
      await refused(store.backup(dirname(f.file()), { overwrite: true }), "not-a-file");
      assert.deepEqual(listing(f), files);
      assert.equal(readFileSync(f.file("taken.db"), "utf8"), "keep me");
      assert.ok(readFileSync(f.file()).equals(storeBytes), "a refused backup changed the store file");
      assert.equal(store.messageCount(), 50);

      const replaced = await store.backup(f.file("taken.db"), { overwrite: true });
      assert.equal(replaced.path, f.file("taken.db"));
      const copy = f.open({ readOnly: true }, f.file("taken.db"));
      assert.equal(copy.messageCount(), 50);
    });

    test("a symlink loop and a folder of /proc that takes no file are refused, typed, naming no temporary file", async (f) => {
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      seed(store, 5);
      symlinkSync("loop.db", f.file("loop.db"));
      const files = listing(f);
      for (const overwrite of [false, true]) {
        const loop = await refused(store.backup(f.file("loop.db"), { overwrite }), "not-a-file");
        assert.doesNotMatch(loop.message, /\.tmp-/);
      }
      assert.deepEqual(listing(f), files);
      // Not asked with existsSync: Deno wants --allow-all for /proc, and refuses even the look.
      if (process.platform === "linux") {
        const proc = await refused(store.backup("/proc/self/x.db"), "not-permitted");
        assert.doesNotMatch(proc.message, /\.tmp-/);
      } else {
        console.log(`[conformance] ${target.name}: /proc/self/x.db not tried: this system is not Linux`);
      }
      assert.equal(store.messageCount(), 5);
    });

    test("a destination that begins with file: is a file of that name, never a SQLite URI", async (f) => {
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      seed(store, 20);
      const dir = dirname(f.file());
      // node:sqlite read it as a URI: the copy went to an in-memory database and was lost.
      const destination = "file:copy.db?mode=memory";
      const result = await inFolder(dir, () => store.backup(destination));
      assert.equal(result.path, destination);
      assert.ok(statSync(`${dir}/${destination}`).size > 0, "the copy is not on disk");
      const copy = f.open({ readOnly: true }, `${dir}/${destination}`);
      assert.equal(copy.messageCount(), 20);
      assert.ok(!existsSync(`${dir}/copy.db`));
    });

    test("bad backup options and a closed store are rejections (INVALID_INPUT, STORE_CLOSED) with nothing written", async (f) => {
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      seed(store, 20);
      writeFileSync(f.file("taken.db"), "keep me");
      const files = listing(f);
      const throwing = Object.defineProperty({}, "overwrite", {
        enumerable: true,
        get() {
          throw new Error("getter");
        },
      });
      const bad: Array<[unknown, string]> = [
        [5, "backup options"],
        ["str", "backup options"],
        [[], "backup options"],
        [() => undefined, "backup options"],
        [{ overwrite: "yes" }, "backup.overwrite"],
        [{ overwrite: 1 }, "backup.overwrite"],
        [{ onProgress: 5 }, "backup.onProgress"],
        [{ signal: {} }, "backup.signal"],
        [throwing, "backup.overwrite"],
      ];
      for (const [options, field] of bad) {
        for (const dest of [f.file("new.db"), f.file("taken.db")]) {
          let pending: Promise<unknown> | undefined;
          assert.doesNotThrow(
            () => {
              pending = store.backup(dest, options as never);
            },
            `backup(dest, ${String(options)}) threw synchronously`,
          );
          const error = await (pending as Promise<unknown>).then(
            () => assert.fail(`backup(dest, ${JSON.stringify(options)}) was not refused`),
            (caught: unknown) => caught as { code?: string; field?: string },
          );
          assert.equal(error.code, "INVALID_INPUT", String(error));
          assert.equal(error.field, field);
        }
      }
      // A destination that is not a file path string, or one that has no spelling as a file name
      // (a lone surrogate: runtimes write it differently), is wrong input too. Joined by hand:
      // Bun's path.join replaces a lone surrogate itself.
      for (const dest of [5, null, undefined, {}, `${f.file("a")}\u0000b.db`, `${f.file("half")}\uD800.db`]) {
        await assert.rejects(store.backup(dest as never), (error: { code?: string; field?: string }) => {
          assert.equal(error.code, "INVALID_INPUT", `backup(${String(dest)}): ${String(error)}`);
          assert.equal(error.field, "backup.destination");
          return true;
        });
      }
      assert.deepEqual(listing(f), files);
      assert.equal(readFileSync(f.file("taken.db"), "utf8"), "keep me");
      // null and undefined options are the defaults.
      assert.equal((await store.backup(f.file("a.db"), null)).path, f.file("a.db"));
      store.close();
      let closed: Promise<unknown> | undefined;
      assert.doesNotThrow(() => {
        closed = store.backup(f.file("c.db"));
      }, "backup on a closed store threw synchronously");
      await assert.rejects(closed as Promise<unknown>, { code: "STORE_CLOSED" });
      assert.ok(!existsSync(f.file("c.db")));
    });

    test("another database's WAL, journal and companions, a database another connection has open, and a name with a stale WAL or journal beside it are never written; a closed database is replaced with its -wal and -shm", async (f) => {
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      seed(store, 20);
      // A live database in WAL mode with 300 rows, 100 of them only in its WAL.
      const other = f.raw(f.file("live.db"));
      other.exec("PRAGMA journal_mode = WAL");
      other.exec("PRAGMA wal_autocheckpoint = 0");
      other.exec("CREATE TABLE t(x)");
      for (let i = 0; i < 200; i++) other.prepare("INSERT INTO t VALUES (?)").run(i);
      other.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      for (let i = 200; i < 300; i++) other.prepare("INSERT INTO t VALUES (?)").run(i);
      const wal = readFileSync(f.file("live.db-wal"));
      // A rollback journal's first bytes, under a name that says nothing.
      writeFileSync(
        f.file("journal.bin"),
        Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7, 0, 0]),
      );
      const files = listing(f);
      for (const name of [
        "live.db-wal",
        "live.db-shm",
        "live.db-journal",
        "live.db.fts-rebuild.lock",
        "journal.bin",
      ]) {
        for (const overwrite of [false, true])
          await refused(store.backup(f.file(name), { overwrite }), "sqlite-file");
      }
      const open = await refused(store.backup(f.file("live.db"), { overwrite: true }), "sqlite-file");
      assert.match(open.message, /another connection has open/);
      assert.deepEqual(listing(f), files);
      // The WAL and shared memory of a database that was deleted while open, beside a new name and
      // beside a file that is no database: SQLite would replay that WAL into the copy.
      writeFileSync(f.file("gone.db-wal"), wal);
      writeFileSync(f.file("gone.db-shm"), readFileSync(f.file("live.db-shm")));
      writeFileSync(f.file("notes.txt"), "notes");
      writeFileSync(f.file("notes.txt-journal"), "");
      const stale = listing(f);
      for (const name of ["gone.db", "notes.txt"]) {
        for (const overwrite of [false, true]) {
          const error = await refused(store.backup(f.file(name), { overwrite }), "sqlite-file");
          assert.match(error.message, /-(wal|journal) beside it, left by another database/);
        }
      }
      assert.deepEqual(listing(f), stale);
      assert.ok(readFileSync(f.file("gone.db-wal")).equals(wal), "the stale WAL was changed");
      assert.ok(readFileSync(f.file("live.db-wal")).equals(wal), "the other database's WAL was written");
      assert.equal(Number(other.prepare("SELECT count(*) AS n FROM t").get()?.n), 300);
      const shm = readFileSync(f.file("live.db-shm"));
      other.close();
      // Closed, the other database is an ordinary earlier copy, even with the -wal and -shm a
      // crash (or a read-only open) left beside it: they are replaced with it, never paired with
      // the new copy.
      assert.ok(!existsSync(f.file("live.db-wal")));
      writeFileSync(f.file("live.db-wal"), wal);
      writeFileSync(f.file("live.db-shm"), shm);
      await refused(store.backup(f.file("live.db")), "exists");
      const replaced = await store.backup(f.file("live.db"), { overwrite: true });
      assert.equal(replaced.path, f.file("live.db"));
      assert.ok(!existsSync(f.file("live.db-wal")), "the replaced database's WAL was left beside the copy");
      assert.ok(!existsSync(f.file("live.db-shm")), "the replaced database's shm was left beside the copy");
      const copy = f.open({ readOnly: true }, f.file("live.db"));
      assert.equal(copy.messageCount(), store.messageCount());
      copy.close();
    });

    test("a database a child process has open, idle, is never replaced; once the child is killed it is, with the WAL it left", async (f) => {
      const appender = target.appender;
      if (!appender) {
        console.log(
          `[conformance] ${target.name}: skipped "backup over a database a child has open": the target has no appender`,
        );
        return;
      }
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      seed(store, 20);
      const other = f.file("other.db");
      const ledger = f.file("ledger.txt");
      const child = await appender({ path: other, sessionId: "child", ledger });
      try {
        await waitForAcks(ledger, 5);
        await holdAppender(ledger);
        const wal = readFileSync(`${other}-wal`);
        const error = await refused(store.backup(other, { overwrite: true }), "sqlite-file");
        assert.match(error.message, /another connection has open/);
        assert.ok(readFileSync(`${other}-wal`).equals(wal), "the child's WAL was changed");
      } finally {
        await child.stop();
      }
      // Killed, the child left its -wal and -shm: they go with the database they belong to.
      assert.ok(existsSync(`${other}-wal`));
      await store.backup(other, { overwrite: true });
      assert.ok(!existsSync(`${other}-wal`) && !existsSync(`${other}-shm`));
      const copy = f.open({ readOnly: true }, other);
      assert.equal(copy.messageCount(), store.messageCount());
      copy.close();
    });

    test("an aborted backup leaves nothing behind and the store keeps working", async (f) => {
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      seed(store, 500);
      const files = listing(f);
      const already = new AbortController();
      already.abort();
      await assert.rejects(store.backup(f.file("a.db"), { signal: already.signal }), { name: "AbortError" });
      assert.deepEqual(listing(f), files);

      // Abort at the first progress report (the online backup reports pages as it goes; VACUUM
      // INTO reports its phases).
      const controller = new AbortController();
      const phases: string[] = [];
      await assert.rejects(
        store.backup(f.file("b.db"), {
          signal: controller.signal,
          onProgress: (progress) => {
            phases.push(progress.phase);
            controller.abort();
          },
        }),
        { name: "AbortError" },
      );
      assert.ok(phases.length >= 1);
      assert.deepEqual(listing(f), files);
      assert.ok(!existsSync(f.file("b.db")));
      store.appendMessage("seed", { role: "user", content: "still writable" });
      assert.equal(store.messageCount(), 501);
    });

    test("a backup aborted from the event loop while it copies (a timer, a signal's listener) stops with AbortError and leaves nothing behind", async (f) => {
      // In WAL mode, so the online backup copies in steps; the abort comes from a timer set at
      // the first progress report, which runs only if the copy gives the event loop its turns.
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      seedBulk(store);
      const files = listing(f);
      const controller = new AbortController();
      let reports = 0;
      let reportsAfterAbort = 0;
      await assert.rejects(
        store.backup(f.file("copy.db"), {
          signal: controller.signal,
          onProgress: () => {
            if (controller.signal.aborted) reportsAfterAbort++;
            if (reports++ === 0) setTimeout(() => controller.abort(), 0);
          },
        }),
        { name: "AbortError" },
      );
      // Stopped at the step after the abort: no page was reported copied after it.
      assert.equal(reportsAfterAbort, 0);
      assert.deepEqual(listing(f), files);
      store.appendMessage("seed", { role: "user", content: "still writable" });
      assert.equal(store.messageCount(), BULK_ROWS + 1);
    });

    test("a DELETE-mode backup, copied in one step or one statement, still sees an abort from the event loop (a timer, a signal's listener): AbortError, nothing published", async (f) => {
      // VACUUM INTO (bun:sqlite, @db/sqlite) holds the thread to its end and awaits nothing in
      // DELETE mode: the timer below can only run once the copy is over, and must still stop it.
      const store = f.open({ journalMode: "delete" });
      seed(store, 3000);
      const files = listing(f);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 0);
      await assert.rejects(store.backup(f.file("copy.db"), { signal: controller.signal }), {
        name: "AbortError",
      });
      assert.deepEqual(listing(f), files);
      store.appendMessage("seed", { role: "user", content: "still writable" });
      assert.equal(store.messageCount(), 3001);
    });
  });
}
