/**
 * The files a store makes and the locks it takes, on a real file system: every file is private
 * (0600) whatever the umask; a lock path that leads anywhere but a lock file of ours is refused
 * at once; a store on a read-only mount gets the same error on every runtime.
 */
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { admissionLockPath, createStore } from "@sessiondb/core";
import { FILE_RECHECK_AFTER_MS, STORE_FILE_MODE } from "@sessiondb/core/testing";
import {
  assert,
  type ConformanceTarget,
  fileFixtureTest,
  inFolder,
  SAFE_SQLITE,
  throwsCodeSync,
} from "./harness.js";
import { tmpfsUnavailable, withTmpfs } from "./tmpfs.js";

const ARMS = [
  { mode: "wal", sqliteVersion: SAFE_SQLITE },
  // A WAL-reset-vulnerable version: the real journal policy keeps the store in DELETE mode.
  { mode: "delete", sqliteVersion: "3.50.4" },
] as const;

/** The umask most systems run with: SQLite creates files 0644 under it. */
const USUAL_UMASK = 0o022;

/** The mode SQLite gives a file it creates here, left alone. */
function sqliteCreationMode(target: ConformanceTarget, dir: string): number {
  const probe = join(dir, "mode-probe.db");
  target.driver.open(probe, { readOnly: false }).close();
  const mode = statSync(probe).mode & 0o777;
  rmSync(probe);
  return mode;
}

/** Run `fn` where SQLite on its own creates files others may read (so that a 0600 check can
 * fail), setting umask 022 if need be; or return why that cannot be arranged (Deno asks for
 * --allow-sys to set the umask). */
function whereFilesComeOutLoose(target: ConformanceTarget, dir: string, fn: () => void): string | undefined {
  const mode = sqliteCreationMode(target, dir);
  if ((mode & 0o077) !== 0) {
    fn();
    return undefined;
  }
  let previous: number;
  try {
    previous = process.umask(USUAL_UMASK);
  } catch (error) {
    return `SQLite creates files ${mode.toString(8)} here and the umask cannot be set (${(error as Error).message})`;
  }
  try {
    fn();
  } finally {
    process.umask(previous);
  }
  return undefined;
}

export function filesSuite(target: ConformanceTarget): void {
  const { describe, it } = target;
  const test = fileFixtureTest(target);

  describe("files and locks", () => {
    test("every file the store makes is 0600 where SQLite alone makes them 0644: after open, append, rebuildFts", (f) => {
      const host = target.host;
      assert.ok(host, "the conformance target needs a host to check file modes");
      const dir = join(f.file(), "..");
      const loose = () =>
        readdirSync(dir)
          .map((name) => [name, (statSync(join(dir, name)).mode & 0o777).toString(8)])
          .filter(([, mode]) => mode !== STORE_FILE_MODE.toString(8));
      const skipped = whereFilesComeOutLoose(target, dir, () => {
        for (const arm of ARMS) {
          const path = f.file(`${arm.mode}.db`);
          const store = f.open({ sqliteVersion: arm.sqliteVersion }, path);
          assert.equal(store.journalMode, arm.mode);
          assert.deepEqual(loose(), [], "after open");
          store.createSession({ id: "s", source: "test" });
          store.appendMessage("s", { role: "user", content: "private" });
          assert.deepEqual(loose(), [], "after append");
          assert.equal(store.rebuildFts({ timeoutMs: 0 }).rebuilt, true);
          assert.deepEqual(loose(), [], "after rebuildFts");
          store.close();
          assert.deepEqual(loose(), [], "after close");
          const names = readdirSync(dir);
          assert.ok(names.includes(`${arm.mode}.db.fts-rebuild.lock`), names.join(", "));
          assert.ok(names.includes(`${arm.mode}.db.fts-rebuild.lock.holder.json`), names.join(", "));
        }
      });
      if (skipped) console.log(`[conformance] ${target.name}: skipped "every file is 0600": ${skipped}`);
    });

    test("a lock path that is a symlink to the store: rebuildFts says so at once and never opens it", (f) => {
      assert.ok(target.host, "the conformance target needs a host to examine the lock path");
      const path = f.file();
      const lock = admissionLockPath(path);
      const seeded = f.open({ sqliteVersion: SAFE_SQLITE });
      seeded.createSession({ id: "s", source: "test" });
      seeded.appendMessage("s", { role: "user", content: "kept" });
      seeded.close();
      // Read while no connection of this process has the file open (closing a descriptor of it
      // would drop SQLite's locks).
      const before = readFileSync(path);
      for (const companion of ["", "-wal"]) {
        rmSync(lock, { force: true });
        symlinkSync(`${path}${companion}`, lock);
        const store = f.open({ sqliteVersion: SAFE_SQLITE, patience: { writeMs: 30_000 } });
        const started = Date.now();
        const result = store.rebuildFts({ timeoutMs: 30_000 });
        assert.ok(Date.now() - started < 5_000, `rebuildFts took ${Date.now() - started} ms`);
        assert.equal(result.rebuilt, false);
        assert.equal(result.blocked, "environment");
        assert.ok(result.reason?.includes(lock), result.reason);
        if (companion === "") assert.match(result.reason ?? "", /symbolic link to the store's own file/);
        else assert.match(result.reason ?? "", /symbolic link to /);
        assert.equal(store.messageCount(), 1);
        store.close();
      }
      assert.ok(readFileSync(path).equals(before), "the store file changed");
      // Once the link is gone, sessiondb makes its own lock file and the rebuild runs.
      rmSync(lock);
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      assert.equal(store.rebuildFts({ timeoutMs: 0 }).rebuilt, true);
      assert.deepEqual(store.checkIntegrity(), { ok: true, problems: [] });
    });

    test("a path that begins with file: is a file of that name, never a SQLite URI: every write reaches it on disk", (f) => {
      const dir = join(f.file(), "..");
      // node:sqlite read these as URIs: the first an in-memory database (every write lost at
      // close), the second the file state.db beside them.
      const paths = ["file:state.db?mode=memory", "file:state.db"];
      return inFolder(dir, () => {
        for (const path of paths) {
          const store = f.open({ sqliteVersion: SAFE_SQLITE }, path);
          store.createSession({ id: "s", source: path });
          store.appendMessage("s", { role: "user", content: "kept" });
          // The admission lock file beside it is named the same way.
          assert.equal(store.rebuildFts({ timeoutMs: 0 }).rebuilt, true);
          store.close();
        }
        for (const path of paths) {
          assert.ok(statSync(join(dir, path)).size > 0, `${path} is not a file on disk`);
          const reopened = f.open({ readOnly: true }, path);
          assert.equal(reopened.getSession("s")?.source, path);
          assert.equal(reopened.getMessages("s")[0]?.content, "kept");
          reopened.close();
        }
        const strays = readdirSync(dir).filter((name) => !name.startsWith("file:"));
        assert.deepEqual(strays, [], "a file was made under a name the path does not spell");
      });
    });

    test("an open of a WAL store that fails leaves the folder as it found it: no -wal or -shm of its own", (f) => {
      const path = f.file();
      const folder = () => readdirSync(join(path, "..")).sort();
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      store.createSession({ id: "s", source: "test" });
      store.close();
      // The schema page after the file header: the store no longer opens.
      const bytes = readFileSync(path);
      bytes.fill(0x5a, 100, 4096);
      writeFileSync(path, bytes);
      const app = f.file("app.db");
      const conn = f.raw(app);
      conn.exec("PRAGMA journal_mode = WAL; CREATE TABLE moz_places (id INTEGER PRIMARY KEY)");
      conn.close();
      for (const [file, code] of [
        [path, "STORE_CORRUPT"],
        [app, "STORE_OPEN_FAILED"],
      ] as const) {
        for (const readOnly of [true, false]) {
          const before = folder();
          throwsCodeSync(() => f.open({ sqliteVersion: SAFE_SQLITE, readOnly }, file), code);
          assert.deepEqual(folder(), before, `${code}, readOnly: ${readOnly}`);
        }
      }
    });

    test("a read-only in-memory store (:memory: or the empty path) is INVALID_INPUT on every driver, a writable one works", (f) => {
      for (const path of [":memory:", ""]) {
        const error = throwsCodeSync(() => f.open({ readOnly: true }, path), "INVALID_INPUT");
        assert.equal((error as { field?: string }).field, "openStore.readOnly");
        const store = f.open({}, path);
        store.createSession({ id: "s", source: "memory" });
        assert.equal(store.getSession("s")?.source, "memory");
        store.close();
      }
    });

    for (const arm of ARMS) {
      test(`${arm.mode}: two stores of one file in one thread: a lock the other holds across this thread's code is STORE_BUSY at once, not a wait to the timeout`, async (f) => {
        // A wait here blocks the thread the holder needs to let go: it could only time out.
        const patience = { appendMs: 10_000, writeMs: 10_000 };
        const a = f.open({ sqliteVersion: arm.sqliteVersion, patience });
        const b = f.open({ sqliteVersion: arm.sqliteVersion, patience });
        assert.equal(a.journalMode, arm.mode);
        a.createSession({ id: "a", source: "test" });
        b.createSession({ id: "b", source: "test" });
        const quick = (what: string, fn: () => unknown): void => {
          const started = Date.now();
          const error = throwsCodeSync(fn, "STORE_BUSY");
          assert.ok(Date.now() - started < 2_000, `${what} waited ${Date.now() - started} ms`);
          assert.match(error.message, /held in this thread/);
        };
        a.transaction(() => {
          a.appendMessage("a", { role: "user", content: "in a's transaction" });
          quick("b's append inside a's transaction", () =>
            b.appendMessage("b", { role: "user", content: "refused" }),
          );
          // A rebuild is not admitted, as when another store of this thread holds the admission.
          const started = Date.now();
          const rebuild = b.rebuildFts({ timeoutMs: 10_000 });
          assert.ok(Date.now() - started < 2_000, `b's rebuild waited ${Date.now() - started} ms`);
          assert.equal(rebuild.rebuilt, false);
          assert.equal(rebuild.blocked, "held");
          assert.match(rebuild.reason ?? "", /held in this thread, by a store\.transaction\(\) function/);
        });
        assert.deepEqual(
          a.getMessages("a").map((m) => m.content),
          ["in a's transaction"],
        );
        assert.equal(b.messageCount("b"), 0);
        // A backup holds a rollback-journal store's read lock until the copy settles on the event
        // loop (where the copy is one synchronous statement, it is over before anything else runs).
        const backup = a.backup(f.file("copy.db"));
        for (const [name, store] of [
          ["a", a],
          ["b", b],
        ] as const) {
          const started = Date.now();
          try {
            store.appendMessage(name, { role: "user", content: "during the backup" });
          } catch (error) {
            assert.equal((error as { code?: string }).code, "STORE_BUSY", String(error));
            assert.match((error as Error).message, /held in this thread, by a backup/);
          }
          assert.ok(Date.now() - started < 2_000, `${name}'s append waited ${Date.now() - started} ms`);
        }
        await backup;
        b.appendMessage("b", { role: "user", content: "after" });
        // The FTS admission: a rebuild of the other store from this one's onProgress.
        let inner: ReturnType<typeof b.rebuildFts> | undefined;
        const started = Date.now();
        const outer = a.rebuildFts({
          onProgress: () => {
            inner ??= b.rebuildFts({ timeoutMs: 10_000 });
          },
        });
        assert.ok(Date.now() - started < 2_000, `the inner rebuild waited ${Date.now() - started} ms`);
        assert.deepEqual(outer, { rebuilt: true });
        assert.equal(inner?.rebuilt, false);
        assert.equal(inner?.blocked, "held");
        assert.match(inner?.reason ?? "", /held in this thread/);
        // Nothing is held any more: both write and rebuild at once.
        a.appendMessage("a", { role: "user", content: "after" });
        assert.deepEqual(b.rebuildFts({ timeoutMs: 0 }), { rebuilt: true });
      });
    }

    for (const arm of ARMS) {
      test(`${arm.mode}: a store opened by a relative path keeps its lock file, its file modes and its backups' source beside it after the working directory changes`, async (f) => {
        const dir = join(f.file(), "..");
        const elsewhere = join(dir, "elsewhere");
        mkdirSync(elsewhere);
        const store = await inFolder(dir, () => f.open({ sqliteVersion: arm.sqliteVersion }, "relative.db"));
        assert.equal(store.path, "relative.db");
        await inFolder(elsewhere, async () => {
          store.createSession({ id: "s", source: "test" });
          store.appendMessage("s", { role: "user", content: "kept" });
          assert.deepEqual(store.rebuildFts({ timeoutMs: 0 }), { rebuilt: true });
          await store.backup(join(dir, "copy.db"));
          store.close();
        });
        assert.deepEqual(readdirSync(elsewhere), [], "a file went to the new working directory");
        const lock = admissionLockPath(join(dir, "relative.db"));
        for (const file of [lock, `${lock}.holder.json`, join(dir, "copy.db")]) {
          assert.equal((statSync(file).mode & 0o777).toString(8), STORE_FILE_MODE.toString(8), file);
        }
        const copy = f.open({ readOnly: true }, join(dir, "copy.db"));
        assert.equal(copy.getMessages("s")[0]?.content, "kept");
      });
    }

    for (const arm of ARMS) {
      test(`${arm.mode}: a store file deleted or replaced under an open store: its writes are STORE_READONLY saying so, none is lost in a file no one can open`, async (f) => {
        const path = f.file();
        // A store opened by a relative path keeps its file when the working directory changes.
        const relative = await inFolder(join(path, ".."), () =>
          f.open({ sqliteVersion: arm.sqliteVersion }, "relative.db"),
        );
        relative.createSession({ id: "r", source: "test" });
        assert.equal(relative.getSession("r")?.source, "test");
        relative.close();
        for (const how of ["deleted", "replaced"] as const) {
          const store = f.open({ sqliteVersion: arm.sqliteVersion });
          assert.equal(store.journalMode, arm.mode);
          store.createSession({ id: "s", source: "test" });
          for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${path}${suffix}`, { force: true });
          if (how === "replaced") {
            const other = f.open({ sqliteVersion: arm.sqliteVersion }, f.file("other.db"));
            other.createSession({ id: "other", source: "test" });
            other.close();
            renameSync(f.file("other.db"), path);
          }
          // A write looks again unless a look found the file in place less than
          // FILE_RECHECK_AFTER_MS ago (createSession's, just now): in WAL mode, wait that out.
          // Rollback-journal mode is refused by SQLite at once, and a fresh look explains it.
          if (arm.mode === "wal") {
            await new Promise((resolve) => setTimeout(resolve, 4 * FILE_RECHECK_AFTER_MS));
          }
          // Before, WAL mode acknowledged these into the unlinked file, and rollback-journal mode
          // refused them as a bare "readonly database".
          for (const write of [
            () => store.appendMessage("s", { role: "user", content: "lost?" }),
            () => store.createSession({ id: "t", source: "test" }),
            () => store.transaction(() => store.updateSession("s", { title: "lost?" })),
          ]) {
            const error = throwsCodeSync(write, "STORE_READONLY");
            assert.match(
              error.message,
              new RegExp(`was ${how === "deleted" ? "deleted or renamed" : "replaced"}`),
            );
          }
          store.close();
          const reopened = f.open({ sqliteVersion: arm.sqliteVersion });
          assert.deepEqual(
            reopened.listSessions().map((session) => session.id),
            how === "deleted" ? [] : ["other"],
          );
          reopened.close();
        }
      });
    }

    const why = tmpfsUnavailable();
    if (why) {
      console.log(`[conformance] ${target.name}: skipped "a read-only mount": cannot mount a tmpfs (${why})`);
      return;
    }
    for (const arm of ARMS) {
      it(`${arm.mode}: a store on a read-only mount refuses a writable open with STORE_READONLY`, () =>
        withTmpfs(1024 * 1024, ({ dir, remount }) => {
          const path = join(dir, "state.db");
          const open = (readOnly: boolean) =>
            createStore(target.driver, path, {
              host: target.host,
              sqliteVersion: arm.sqliteVersion,
              readOnly,
            });
          const store = open(false);
          assert.equal(store.journalMode, arm.mode);
          store.createSession({ id: "s", source: "test" });
          store.appendMessage("s", { role: "user", content: "kept" });
          store.close();
          remount("ro");
          try {
            const refused = throwsCodeSync(() => open(false), "STORE_READONLY");
            assert.match(refused.message, /readOnly: true/);
            // Not only "not writable by this process": root is refused too.
            assert.match(refused.message, /a file system mounted read-only/);
            if (arm.mode === "delete") {
              const reader = open(true);
              assert.equal(reader.messageCount("s"), 1);
              throwsCodeSync(
                () => reader.appendMessage("s", { role: "user", content: "no" }),
                "STORE_READONLY",
              );
              reader.close();
            } else {
              // A closed WAL store has no -shm, and a read-only mount cannot get one.
              const failed = throwsCodeSync(() => open(true), "STORE_OPEN_FAILED");
              assert.match(failed.message, /-shm/);
            }
          } finally {
            remount("rw");
          }
          const again = open(false);
          assert.equal(again.messageCount("s"), 1);
          again.close();
        }));
    }
  });
}
