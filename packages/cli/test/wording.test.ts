/**
 * The CLI's words for the library's errors: no message a CLI user can meet names the library's
 * API (`{ overwrite: true }`, `store.createSession(...)`, `a SqliteDriver object`); each says the
 * flag or command to use. The errors a command line can produce are produced for real (the built
 * CLI against real stores, a real lock holder, a read-only mount); the rest — a session deleted
 * by another process mid-command, a newer schema, an unsafe SQLite — are the library's own error
 * objects handed to the CLI's wording.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  BackupDestinationError,
  DriverUnavailableError,
  InvalidInputError,
  SchemaOutdatedError,
  SchemaTooNewError,
  SessionNotFoundError,
  StoreBusyError,
  StoreClosedError,
  StoreCorruptError,
  StoreFullError,
  StoreInUseError,
  StoreOpenError,
  StoreReadOnlyError,
  UnsafeSqliteError,
} from "@sessiondb/core";
import { resolveDriver } from "@sessiondb/node";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { describe as describeError } from "../src/exit.js";
import { problemText, rememberStore } from "../src/wording.js";
import {
  cli,
  corpusStore,
  expectOneLineError,
  holdLock,
  json,
  mountTmpfs,
  tempDir,
  unmount,
  withStore,
} from "./helpers.js";

/** What a library message looks like when it names its API rather than the CLI's flags. */
const API = /\{ ?\w+: [^}]*\}|\bstore\.\w+\(|\b(openStore|createStore|repairStore|SqliteDriver)\b/;

let dir: string;
let db: string;
const mounts: string[] = [];

beforeAll(() => {
  dir = tempDir();
  db = path.join(dir, "corpus.db");
  corpusStore(db, 600, 11);
});

afterAll(() => {
  for (const m of mounts) unmount(m);
});

/** A folder on a tmpfs of its own, filled by `fill`, then remounted read-only; the test is
 * skipped (saying why) where that cannot be done. */
function readOnlyFolder(ctx: TestContext, fill?: (folder: string) => void): string {
  const folder = path.join(tempDir(), "ro");
  const reason = mountTmpfs(folder, "size=16m");
  if (reason) {
    console.warn(`skipped: needs a tmpfs to remount read-only: ${reason}`);
    ctx.skip(reason);
  }
  mounts.push(folder);
  fill?.(folder);
  const remount = spawnSync("mount", ["-o", "remount,ro", folder], { encoding: "utf8" });
  if (remount.status !== 0) ctx.skip(`mount -o remount,ro failed: ${remount.stderr.trim()}`);
  return folder;
}

describe("library errors in the CLI's words (the error objects themselves)", () => {
  const file = () => path.join(dir, "in-a-file");

  it.each([
    ["SESSION_NOT_FOUND", () => new SessionNotFoundError("gone"), /no session "gone" in \/store\.db/],
    [
      "BACKUP_DESTINATION_REFUSED (exists)",
      () => new BackupDestinationError("/b.db", "exists", "already exists"),
      /--overwrite/,
    ],
    [
      "STORE_IN_USE",
      () => new StoreInUseError("/store.db", "write lock (RESERVED)"),
      /write lock \(RESERVED\) on \/store\.db.*add --force/,
    ],
    [
      "STORE_READONLY",
      () => new StoreReadOnlyError("it was opened with { readOnly: true }"),
      /\/store\.db is read-only for this process/,
    ],
    [
      "SCHEMA_TOO_NEW",
      () => new SchemaTooNewError(9, 4),
      /schema version 9, newer than the 4.*Upgrade sessiondb/,
    ],
    [
      "UNSAFE_SQLITE",
      () => new UnsafeSqliteError("3.45.1", "the store is in WAL mode"),
      /SQLite 3\.45\.1.*SESSIONDB_DRIVER/,
    ],
    ["STORE_CLOSED", () => new StoreClosedError(), /closed before the command finished/],
    [
      "STORE_CORRUPT",
      () => new StoreCorruptError("database disk image is malformed"),
      /corrupt \(database disk image is malformed\).*repair the store \("sessiondb repair"\)/,
    ],
    [
      "INVALID_INPUT (--wait)",
      () => new InvalidInputError("openStore.patience.writeMs", "expected milliseconds from 0 to 86400000"),
      /^--wait: expected milliseconds/,
    ],
    [
      "INVALID_INPUT (search query)",
      () =>
        new InvalidInputError(
          "search.query",
          "its terms hold 70 words, more than 64; search for a shorter distinctive part, or pass { substring: true } to match long pasted text",
        ),
      /add --substring/,
    ],
  ])("%s", (_, make, wording) => {
    rememberStore("/store.db", false);
    const error = make();
    expect(error.message).toMatch(API);
    const line = describeError(error);
    expect(line).toMatch(wording);
    expect(line).not.toMatch(API);
  });

  it("a store path under a regular file names the file in the way (no 'does not exist')", () => {
    fs.writeFileSync(file(), "");
    const error = new StoreOpenError(path.join(file(), "x.db"), `its directory ${file()} does not exist`);
    expect(describeError(error)).toBe(
      `cannot create a store at ${path.join(file(), "x.db")}: ${file()} is a file, not a folder. Nothing was changed.`,
    );
  });

  it("every other library error keeps its message, and none of them names the API", () => {
    rememberStore("/store.db", false);
    for (const error of [
      new StoreBusyError(3100, "Last lock error: database is locked."),
      new StoreFullError('the rename of session "s"'),
      new SchemaOutdatedError("messages.reasoning"),
      new DriverUnavailableError("No SQLite binding is available on node 20.0.0."),
    ]) {
      expect(describeError(error)).toBe(error.message);
      expect(error.message).not.toMatch(API);
    }
  });

  it("a detached FTS index in check's report names the command, not store.rebuildFts()", () => {
    const text = problemText({ kind: "fts-detached", message: "… (store.rebuildFts()) …" });
    expect(text).toContain('"sessiondb fts rebuild"');
    expect(text).not.toMatch(API);
  });
});

describe("library errors in the CLI's words (the built CLI)", () => {
  it("backup onto an existing file says --overwrite; onto /dev/null says what /dev/null is", () => {
    const dest = path.join(dir, "taken.db");
    fs.writeFileSync(dest, "mine");
    const taken = cli(["--db", db, "backup", dest]);
    expectOneLineError(taken, 2, "BACKUP_DESTINATION_REFUSED");
    expect(taken.stderr).toContain("Add --overwrite to replace it");
    expect(taken.stderr).not.toMatch(API);
    const device = cli(["--db", db, "backup", "/dev/null"]);
    expectOneLineError(device, 2, "BACKUP_DESTINATION_REFUSED");
    expect(device.stderr).toContain("/dev/null: it is a character device, not a regular file");
  });

  it("repair of a store another process holds says --force", async () => {
    const file = path.join(dir, "held.db");
    fs.copyFileSync(db, file);
    const holder = await holdLock(file, "immediate");
    try {
      const r = cli(["--db", file, "repair"]);
      expectOneLineError(r, 4, "STORE_IN_USE");
      expect(r.stderr).toContain("add --force");
      expect(r.stderr).not.toMatch(API);
    } finally {
      await holder.release();
    }
  });

  it("a write to a store on a read-only file system says what still works, not { readOnly: true }", (ctx) => {
    const folder = readOnlyFolder(ctx, (dir) =>
      withStore(path.join(dir, "state.db"), (s) => s.createSession({ id: "s1", source: "cli" }), {
        journalMode: "delete",
      }),
    );
    const file = path.join(folder, "state.db");
    const r = cli(["--db", file, "sessions", "rename", "s1", "new title"]);
    expectOneLineError(r, 6, "STORE_READONLY");
    expect(r.stderr).toContain(`${file} is read-only for this process`);
    expect(r.stderr).toContain("Read commands");
    expect(r.stderr).not.toMatch(API);
    expect(json(cli(["--db", file, "sessions", "show", "s1", "--json"])).session.title).toBeNull();
  });

  it("a backup into a folder on a read-only file system is refused as the destination's, with nothing left there", (ctx) => {
    const folder = readOnlyFolder(ctx);
    const dest = path.join(folder, "copy.db");
    const r = cli(["--db", db, "backup", dest]);
    expectOneLineError(r, 2, "BACKUP_DESTINATION_REFUSED");
    expect(r.stderr).toContain(`cannot write ${dest}: this user may not write there`);
    expect(r.stderr).not.toContain(".tmp-");
    expect(fs.readdirSync(folder)).toEqual([]);
  });

  it("--wait out of range names --wait; a query over the word budget says --substring", () => {
    const wait = cli(["--db", db, "--wait", "99999999999", "stats"]);
    expectOneLineError(wait, 2, "INVALID_INPUT");
    expect(wait.stderr).toMatch(/^sessiondb: --wait: /);
    const words = Array.from({ length: 70 }, (_, i) => `w${i}`).join(" ");
    const long = cli(["--db", db, "search", `"${words}"`]);
    expectOneLineError(long, 2, "INVALID_INPUT");
    expect(long.stderr).toContain("add --substring");
    expect(long.stderr).not.toMatch(API);
  });

  it("import into a path under a regular file, or a missing folder, says which", () => {
    const jsonl = path.join(dir, "one.jsonl");
    fs.writeFileSync(jsonl, '{"type":"session","id":"y","source":"cli","started_at":1}\n');
    const blocker = path.join(dir, "afile");
    fs.writeFileSync(blocker, "");
    const under = cli(["--db", path.join(blocker, "x.db"), "import", jsonl]);
    expectOneLineError(under, 6, "STORE_OPEN_FAILED");
    expect(under.stderr).toContain(`${blocker} is a file, not a folder`);
    const missing = cli(["--db", path.join(dir, "nodir", "x.db"), "import", jsonl]);
    expectOneLineError(missing, 6, "STORE_OPEN_FAILED");
    expect(missing.stderr).toContain(`its folder ${path.join(dir, "nodir")} does not exist`);
  });

  it("vacuum of a store made without incremental vacuum points to --full, in text and --json", () => {
    const file = path.join(dir, "legacy.db");
    fs.copyFileSync(db, file);
    // What an older sessiondb made: auto_vacuum off (VACUUM applies the change to the file).
    const raw = resolveDriver().open(file, { readOnly: false });
    raw.exec("PRAGMA auto_vacuum = NONE; VACUUM;");
    raw.close();
    const r = cli(["--db", file, "vacuum"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("sessiondb vacuum --full");
    expect(r.stdout).not.toMatch(API);
    const report = json(cli(["--db", file, "vacuum", "--json"]));
    expect(report.method).toBe("none");
    expect(report.note).toContain("sessiondb vacuum --full");
    expect(report.note).not.toMatch(API);
  });
});
