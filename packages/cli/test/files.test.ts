/**
 * `export --output` never writes the store or any of its files, nor any SQLite database; every
 * problem with the output path is one line on stderr and a documented exit code; the file is
 * written under a temporary name and renamed into place (0600), so a failed export leaves nothing
 * behind and an existing file intact. On every runtime, against real files, real symlinks and
 * hard links, and real tmpfs mounts (read-only; full).
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { openStore } from "@sessiondb/node";
import { stopProcess } from "@sessiondb/test-sqld";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLI,
  cli,
  corpusStore,
  digest,
  expectOneLineError,
  filesIn,
  mountTmpfs,
  runOn,
  storeState,
  TARGETS,
  tempDir,
  unmount,
} from "./helpers.js";

const mounts: string[] = [];
afterAll(() => {
  for (const dir of mounts.splice(0)) unmount(dir);
});

/** A store whose export takes a few hundred writes, for interrupting one. */
let big: { db: string; bytes: number };
beforeAll(() => {
  const db = path.join(tempDir(), "big.db");
  corpusStore(db, 3000, 8);
  big = { db, bytes: Buffer.byteLength(cli(["--db", db, "export"]).stdout) };
});

describe.each(TARGETS)("$name", (target) => {
  const run = runOn(target);
  let dir: string;
  let db: string;
  let reference: string;

  beforeAll(() => {
    dir = tempDir();
    db = path.join(dir, "state.db");
    corpusStore(db, 300, 5);
    // A rebuild takes the FTS admission lock and leaves its holder record: both exist below.
    expect(cli(["--db", db, "fts", "rebuild"]).code).toBe(0);
    reference = cli(["--db", db, "export"]).stdout;
    expect(reference.length).toBeGreaterThan(64 * 1024);
  });

  /** The store's folder, less the -wal/-shm a read-only open may create (SQLite's own business). */
  const listing = () => filesIn(dir).filter((f) => !/^state\.db-(wal|shm)$/.test(f));

  /** Run `export --output <output>` and check the refusal left everything as it was. */
  function refused(output: string, exit: number, code: string): void {
    const state = storeState(db);
    const bytes = digest(db);
    const before = listing();
    const r = run(["--db", db, "export", "--output", output]);
    expectOneLineError(r, exit, code);
    expect(listing()).toEqual(before);
    expect(digest(db)).toBe(bytes);
    expect(storeState(db)).toEqual(state);
    expect(state.check).toBe(0);
  }

  it("the store itself, by its path and through a relative path", () => {
    refused(db, 2, "STORE_FILE");
    refused(path.relative(process.cwd(), db), 2, "STORE_FILE");
  });

  it("each of its files: -wal, -shm, -journal, the admission lock and its holder record", () => {
    // The names core uses: the lock and its holder record exist after the rebuild above.
    expect(fs.existsSync(`${db}.fts-rebuild.lock`)).toBe(true);
    expect(fs.existsSync(`${db}.fts-rebuild.lock.holder.json`)).toBe(true);
    for (const suffix of [
      "-wal",
      "-shm",
      "-journal",
      ".fts-rebuild.lock",
      ".fts-rebuild.lock-journal",
      ".fts-rebuild.lock.holder.json",
    ])
      refused(`${db}${suffix}`, 2, "STORE_FILE");
  });

  it("through a symlink to the store, a symlinked folder, and a dangling symlink to its journal", () => {
    const link = path.join(dir, "link.jsonl");
    const folderLink = path.join(tempDir(), "folder");
    const dangling = path.join(dir, "journal-link.jsonl");
    fs.symlinkSync(db, link);
    fs.symlinkSync(dir, folderLink);
    fs.symlinkSync(`${db}-journal`, dangling);
    try {
      refused(link, 2, "STORE_FILE");
      refused(path.join(folderLink, "state.db-wal"), 2, "STORE_FILE");
      refused(dangling, 2, "STORE_FILE");
      expect(fs.existsSync(`${db}-journal`)).toBe(false);
    } finally {
      fs.rmSync(link);
      fs.rmSync(dangling);
    }
  });

  it("through a hard link to the store, and to its -wal while another process has the store open", () => {
    const hard = path.join(dir, "hard.jsonl");
    fs.linkSync(db, hard);
    try {
      refused(hard, 2, "STORE_FILE");
    } finally {
      fs.rmSync(hard);
    }
    const open = openStore(db, { readOnly: true });
    const walLink = path.join(dir, "wal-link.jsonl");
    try {
      open.messageCount();
      fs.linkSync(`${db}-wal`, walLink);
      refused(walLink, 2, "STORE_FILE");
    } finally {
      fs.rmSync(walLink, { force: true });
      open.close();
    }
  });

  it("stdout appended to the store (`export >> state.db`)", () => {
    const state = storeState(db);
    const bytes = digest(db);
    const fd = fs.openSync(db, "a");
    const [exe, ...pre] = target.runtime;
    let r: ReturnType<typeof spawnSync>;
    try {
      r = spawnSync(exe as string, [...pre, CLI, "--db", db, "export"], {
        encoding: "utf8",
        stdio: ["ignore", fd, "pipe"],
        env: { ...process.env, NO_COLOR: "1", ...target.env },
      });
    } finally {
      fs.closeSync(fd);
    }
    expectOneLineError({ code: r.status, stdout: "", stderr: String(r.stderr) }, 2, "STORE_FILE");
    expect(digest(db)).toBe(bytes);
    expect(storeState(db)).toEqual(state);
  });

  it("another SQLite database, and a file next to one", () => {
    const other = path.join(dir, "other.db");
    corpusStore(other, 10, 9);
    const bytes = digest(other);
    try {
      refused(other, 2, "DATABASE_FILE");
      refused(`${other}-journal`, 2, "DATABASE_FILE");
      expect(digest(other)).toBe(bytes);
    } finally {
      for (const f of fs.readdirSync(dir).filter((f) => f.startsWith("other.db")))
        fs.rmSync(path.join(dir, f));
    }
  });

  it("a folder, a missing folder, a path through a regular file", () => {
    refused(dir, 2, "EISDIR");
    refused(path.join(dir, "missing", "out.jsonl"), 2, "ENOENT");
    refused(path.join(db, "out.jsonl"), 2, "ENOTDIR");
  });

  it("a folder this user cannot write: exit 1, nothing left behind", (ctx) => {
    // Root ignores permission bits: as root the folder is a read-only tmpfs mount instead.
    const folder = path.join(tempDir(), "locked");
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      const reason = mountTmpfs(folder, "ro,size=1m");
      if (reason) {
        console.warn(`skipped: as root this needs a read-only tmpfs: ${reason}`);
        ctx.skip(reason);
      }
      mounts.push(folder);
    } else {
      fs.mkdirSync(folder, { mode: 0o555 });
    }
    refused(path.join(folder, "out.jsonl"), 1, asRoot ? "EROFS" : "EACCES");
    expect(fs.readdirSync(folder)).toEqual([]);
  });

  it("a full disk: exit 1, the existing file there unchanged, no temporary file left", (ctx) => {
    const full = path.join(tempDir(), "full");
    const reason = mountTmpfs(full, "size=64k");
    if (reason) {
      console.warn(`skipped: needs a small tmpfs: ${reason}`);
      ctx.skip(reason);
    }
    mounts.push(full);
    const old = path.join(full, "backup.jsonl");
    fs.writeFileSync(old, "the previous backup\n");
    refused(old, 1, "ENOSPC");
    expect(fs.readFileSync(old, "utf8")).toBe("the previous backup\n");
    expect(fs.readdirSync(full)).toEqual(["backup.jsonl"]);
  });

  it("a good export: the same bytes as stdout, mode 0600, only the file added", () => {
    const out = path.join(dir, "out.jsonl");
    const before = listing();
    const r = run(["--db", db, "export", "--output", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(out, "utf8") === reference).toBe(true);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    expect(listing()).toEqual([...before, "out.jsonl"].sort());
    fs.rmSync(out);
  });

  it("an existing file is replaced whole; through a symlink, its target is", () => {
    const out = path.join(dir, "existing.jsonl");
    fs.writeFileSync(out, "old\n", { mode: 0o644 });
    const link = path.join(dir, "out-link.jsonl");
    fs.symlinkSync(out, link);
    try {
      expect(run(["--db", db, "export", "--output", link]).code).toBe(0);
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
      expect(fs.readFileSync(out, "utf8") === reference).toBe(true);
      expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(link);
      fs.rmSync(out);
    }
  });

  it("a failed export (unknown session) leaves an existing file as it was", () => {
    const out = path.join(dir, "keep.jsonl");
    fs.writeFileSync(out, "keep me\n");
    try {
      const before = listing();
      const r = run(["--db", db, "export", "--session", "nope", "--output", out]);
      expectOneLineError(r, 7, "SESSION_NOT_FOUND");
      expect(fs.readFileSync(out, "utf8")).toBe("keep me\n");
      expect(listing()).toEqual(before);
    } finally {
      fs.rmSync(out);
    }
  });

  it("a device is written directly, never replaced (/dev/null stays a device)", () => {
    const r = run(["--db", db, "export", "--output", "/dev/null"]);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.statSync("/dev/null").isCharacterDevice()).toBe(true);
  });

  it("Ctrl-C mid-export: exit 130, no file, no temporary file", async () => {
    const out = path.join(tempDir(), "interrupted.jsonl");
    const folder = path.dirname(out);
    const [exe, ...pre] = target.runtime;
    const child = spawn(exe as string, [...pre, CLI, "--db", big.db, "export", "--output", out], {
      env: { ...process.env, NO_COLOR: "1", ...target.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    // "close", not "exit": stderr is complete only then.
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    // Freeze the export the moment its temporary file appears, queue the Ctrl-C, let it go on:
    // it sees the signal at its next write, whatever the machine's speed.
    const deadline = Date.now() + 30_000;
    // A busy wait on purpose: the export runs for well under a second.
    while (fs.readdirSync(folder).length === 0 && Date.now() < deadline) {}
    stopProcess(child.pid as number);
    const temporary = fs.readdirSync(folder);
    expect(temporary, "the export finished before it could be interrupted").toHaveLength(1);
    expect(temporary[0]).toMatch(/^\.interrupted\.jsonl\..+\.tmp$/);
    const written = fs.statSync(path.join(folder, temporary[0] as string)).size;
    expect(written, "stopped too late to interrupt it mid-way").toBeLessThan(big.bytes / 2);
    child.kill("SIGINT");
    child.kill("SIGCONT");
    const code = await exited;
    expectOneLineError({ code, stdout: "", stderr }, 130, "INTERRUPTED");
    expect(fs.readdirSync(folder)).toEqual([]);
  });
});
