/**
 * A long command stopped by SIGINT (Ctrl-C), SIGTERM (`kill`, a service manager) or SIGHUP (a
 * closed terminal): it removes its temporary file and exits 128 + the signal's number (130, 143,
 * 129) with one line saying so. Real subprocesses and real signals: each command is frozen with
 * SIGSTOP the moment its temporary file appears (a backup's, once SQLite writes into it), sent the
 * signal, then let go (SIGCONT), so it meets the signal mid-way whatever the machine's speed.
 */
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { stopProcess } from "@sessiondb/test-sqld";
import { beforeAll, describe, expect, it } from "vitest";
import { expectOneLineError, startCli, TARGETS, type Target, tempDir, withStore } from "./helpers.js";

/** Three sessions of 2,000 messages of 4 KB: 24 MB, so a backup takes several steps and an
 * export many writes. */
const SESSIONS = ["a", "b", "c"];
const MESSAGES = 2000;
const SIGNALS = [
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const;

let db: string;
/** The same sessions in a DELETE-mode store, whose backup is one step (or one statement). */
let deleteModeDb: string;

function fill(file: string, journalMode: "wal" | "delete"): void {
  withStore(
    file,
    (s) => {
      for (const [n, id] of SESSIONS.entries()) {
        s.createSession({ id, source: "cli", startedAt: 1_700_000_000 + n });
        for (let i = 0; i < MESSAGES; i += 500)
          s.appendMessages(
            id,
            Array.from({ length: 500 }, (_, j) => ({
              role: "user" as const,
              content: `${"x".repeat(4000)} ${i + j}`,
            })),
          );
      }
    },
    { journalMode },
  );
}

beforeAll(() => {
  db = path.join(tempDir(), "state.db");
  fill(db, "wal");
  deleteModeDb = path.join(tempDir(), "state.db");
  fill(deleteModeDb, "delete");
});

/** The CLI on `store` (default: the test's WAL store), on this Node or on `target`, its stdout
 * drained (only stderr and the exit code matter here). */
function start(args: string[], target?: Target, store = db): ReturnType<typeof startCli> {
  const started = startCli(["--db", store, ...args], target);
  started.child.stdout?.resume();
  return started;
}

/** Freeze `child` the moment `folder` holds a file matching `pattern` (and, given `started`,
 * once `started(name)` says the work on it is under way), send `signal`, let it go on; returns
 * that file's name. */
function stopWhenWriting(
  child: ChildProcess,
  folder: string,
  pattern: RegExp,
  signal: NodeJS.Signals,
  started: (name: string) => boolean = () => true,
): string {
  const deadline = Date.now() + 30_000;
  let found: string | undefined;
  // A busy wait on purpose: the command runs for well under a second.
  while (!found && Date.now() < deadline)
    found = fs.readdirSync(folder).find((f) => pattern.test(f) && started(f));
  stopProcess(child.pid as number);
  expect(found, `no file matching ${pattern} appeared in 30 s`).toBeDefined();
  child.kill(signal);
  child.kill("SIGCONT");
  return found as string;
}

/** Whether SQLite has begun writing the backup's temporary copy `name` in `folder`: the copy has
 * a journal (the online backup writes it in a transaction) or bytes (VACUUM INTO). The copy
 * itself is created empty before the snapshot is taken; a signal then would be seen before the
 * copy begins, and the test would not show that one arriving in the middle of it is. */
function copyUnderWay(folder: string): (name: string) => boolean {
  return (name) => {
    if (name.endsWith("-journal")) return true;
    try {
      return fs.statSync(path.join(folder, name)).size > 0;
    } catch {
      return false; // Renamed or removed between the listing and the look.
    }
  };
}

/** `backup` of `store` stopped by `signal` while SQLite writes its temporary copy: exit `exit`,
 * nothing left. */
async function backupStopped(
  signal: NodeJS.Signals,
  exit: number,
  target?: Target,
  store = db,
): Promise<void> {
  const folder = tempDir();
  const dest = path.join(folder, "copy.db");
  const { child, closed } = start(["backup", dest], target, store);
  stopWhenWriting(child, folder, /^copy\.db\.tmp-/, signal, copyUnderWay(folder));
  const { code, stderr } = await closed;
  expectOneLineError({ code, stdout: "", stderr: stderr.replace(/^backup .*\n/gm, "") }, exit, "INTERRUPTED");
  expect(stderr).toContain(`backup interrupted by ${signal}; nothing was written`);
  expect(fs.readdirSync(folder)).toEqual([]);
}

describe.each(SIGNALS)("%s", (signal, exit) => {
  it(`backup: exit ${exit}, no DEST, no temporary copy`, () => backupStopped(signal, exit));

  it(`export --output: exit ${exit}, an existing FILE unchanged, no temporary file`, async () => {
    const folder = tempDir();
    const out = path.join(folder, "out.jsonl");
    fs.writeFileSync(out, "before\n");
    const { child, closed } = start(["export", "--output", out]);
    const temporary = stopWhenWriting(child, folder, /^\.out\.jsonl\..+\.tmp$/, signal);
    expect(fs.statSync(path.join(folder, temporary)).size, "stopped too late").toBeLessThan(
      MESSAGES * SESSIONS.length * 4000,
    );
    const { code, stderr } = await closed;
    expectOneLineError({ code, stdout: "", stderr }, exit, "INTERRUPTED");
    expect(stderr).toContain(`export interrupted by ${signal}; ${out} is unchanged`);
    expect(fs.readdirSync(folder)).toEqual(["out.jsonl"]);
    expect(fs.readFileSync(out, "utf8")).toBe("before\n");
  });
});

it("export --output signalled just after FILE was replaced: the export is done, so exit 0 and FILE complete", async () => {
  const folder = tempDir();
  const out = path.join(folder, "out.jsonl");
  fs.writeFileSync(out, "before\n");
  const before = fs.statSync(out).ino;
  const { child, closed } = start(["export", "--output", out]);
  const deadline = Date.now() + 30_000;
  // A busy wait on purpose: the command ends a few milliseconds after the rename.
  while (fs.statSync(out).ino === before && Date.now() < deadline);
  stopProcess(child.pid as number);
  expect(fs.statSync(out).ino, "FILE was not replaced in 30 s").not.toBe(before);
  child.kill("SIGINT");
  child.kill("SIGCONT");
  const { code, stderr } = await closed;
  // Once its last line of JavaScript has run, the runtime's teardown gives the signals their
  // default action back (libuv closes its signal handles), so a signal landing in those last
  // milliseconds ends the finished process as the signal would (seen twice under heavy load).
  // The command itself never reports an interruption after its work is done.
  if (code === null) expect(child.signalCode, stderr).toBe("SIGINT");
  else expect(code, stderr).toBe(0);
  expect(stderr).not.toContain("INTERRUPTED");
  expect(stderr).toContain(
    `exported 3 sessions (${(MESSAGES * 3).toLocaleString("en-US")} messages) to ${out}`,
  );
  expect(fs.readFileSync(out, "utf8").trim().split("\n")).toHaveLength(SESSIONS.length * (MESSAGES + 1));
});

it("repair --check-only stopped by SIGINT: exit 130, the folder as it was, its scratch copy private and removed", async () => {
  const folder = tempDir();
  const store = path.join(folder, "state.db");
  fs.copyFileSync(db, store);
  const before = fs.readdirSync(folder).sort();
  const bytes = fs.readFileSync(store);
  const { child, closed } = start(["repair", "--check-only"], undefined, store);
  // The scratch copy itself, not the temporary name it is first written under.
  const scratch = stopWhenWriting(child, folder, /^state\.db\.repair\.tmp-\d+-[a-z0-9]+$/, "SIGINT");
  // A full copy of every transcript: never readable by others, not even for a moment.
  expect(fs.statSync(path.join(folder, scratch)).mode & 0o777).toBe(0o600);
  const { code, stderr } = await closed;
  expectOneLineError({ code, stdout: "", stderr }, 130, "INTERRUPTED");
  expect(stderr).toContain("repair interrupted by SIGINT; nothing was changed");
  expect(fs.readdirSync(folder).sort()).toEqual(before);
  expect(fs.readFileSync(store).equals(bytes)).toBe(true);
});

// On every runtime: Node's bindings copy in steps on the main thread, Deno's node:sqlite on a
// worker thread (its own backup call holds the thread to the end), and bun:sqlite's VACUUM INTO is
// one statement (the signal is seen when it ends, and the copy is thrown away). A DELETE-mode
// store's online backup is one step too.
describe.each(TARGETS)("on $name", (target) => {
  it("backup stopped by SIGTERM: exit 143, no DEST, no temporary copy", () =>
    backupStopped("SIGTERM", 143, target));

  it("backup of a DELETE-mode store stopped by SIGTERM: exit 143, no DEST, no temporary copy", () =>
    backupStopped("SIGTERM", 143, target, deleteModeDb));
});

it("export --output-dir stopped on its second file: exit 143, the first file complete and kept, the second's temporary file removed", async () => {
  const folder = path.join(tempDir(), "out");
  const { child, closed } = start(["export", "--output-dir", folder]);
  fs.mkdirSync(folder, { recursive: true });
  stopWhenWriting(child, folder, /^\.b\.jsonl\..+\.tmp$/, "SIGTERM");
  const { code, stderr } = await closed;
  expectOneLineError({ code, stdout: "", stderr }, 143, "INTERRUPTED");
  expect(stderr).toContain(
    `export interrupted by SIGTERM; this file was not written; the file before it in ${folder} is complete and kept`,
  );
  expect(fs.readdirSync(folder)).toEqual(["a.jsonl"]);
  expect(fs.readFileSync(path.join(folder, "a.jsonl"), "utf8").trim().split("\n")).toHaveLength(MESSAGES + 1);
});
