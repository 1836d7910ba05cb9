/**
 * A corrupt store through the CLI, on real files damaged the ways disks and copies damage them:
 * cut short, the first page (the schema) overwritten, pages zeroed in the middle. Every command
 * that meets the damage exits 5 and leads to `sessiondb repair`; `check` reports even on a store
 * too damaged to open, changing nothing; a long integrity report is shortened for a person and
 * whole in --json.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  bTreeRoot,
  cli,
  expectOneLineError,
  json,
  tempDir,
  tmpfsOrSkip,
  unmount,
  withStore,
} from "./helpers.js";

const PAGE = 4096;
/** Any mention of the repair command, and the advice check and doctor end with. */
const REPAIR = '"sessiondb repair"';
const HINT = 'stop every process that uses the store and run "sessiondb repair"';
const SHORTENED = /… (\d+) more lines \(--json lists them all\)/;

let dir: string;
let sound: string;
let pages: number;

beforeAll(() => {
  dir = tempDir();
  sound = path.join(dir, "sound.db");
  withStore(sound, (store) => {
    for (let s = 0; s < 5; s++) {
      store.createSession({ id: `s${s}`, source: "test" });
      for (let n = 1; n <= 300; n++)
        store.appendMessage(`s${s}`, { role: "user", content: `row ${n} kiwi `.repeat(20) });
    }
  });
  // The writer's close checkpointed the WAL into the file: the file alone is the store.
  expect(fs.existsSync(`${sound}-wal`)).toBe(false);
  pages = fs.statSync(sound).size / PAGE;
});

/** A copy of the sound store in its own directory, damaged by `damage(fd)`. */
function damaged(name: string, damage: (fd: number) => void): { file: string; bytes: Buffer } {
  const file = path.join(fs.mkdtempSync(path.join(dir, `${name}-`)), `${name}.db`);
  fs.copyFileSync(sound, file);
  const fd = fs.openSync(file, "r+");
  try {
    damage(fd);
  } finally {
    fs.closeSync(fd);
  }
  return { file, bytes: fs.readFileSync(file) };
}

/** The database file is byte for byte as damaged, and alone in its folder as it was: no scratch
 * copy, and no -wal or -shm of the commands' read-only connections. */
function expectUnchanged(file: string, bytes: Buffer): void {
  expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
}

/** A read command meets the damage: exit 5 in one line that leads to the repair; so does doctor.
 * `export` reads every message; `sessions show s2` those of the middle session, which pages
 * zeroed in the middle of the file hold. */
function expectReadLeadsToRepair(file: string): void {
  const doctor = cli(["--db", file, "doctor"]);
  expect(doctor.code, doctor.stderr).toBe(5);
  expect(doctor.stdout).toMatch(/\ncorrupt\n/);
  expect(doctor.stdout).toContain(HINT);
  const read = cli(["--db", file, "export"]);
  expectOneLineError(read, 5, "STORE_CORRUPT");
  expect(read.stderr).toContain(REPAIR);
  expect(read.stderr).not.toContain("sessiondb check");
  const asJson = cli(["--db", file, "sessions", "show", "s2", "--json"]);
  expect(asJson.code).toBe(5);
  expect(JSON.parse(asJson.stderr).error.message).toContain(REPAIR);
}

describe("a store cut to half its length", () => {
  it("check reports SQLite's page list shortened, whole in --json, and what a repair would keep; nothing changes", () => {
    const { file, bytes } = damaged("truncated", (fd) => fs.ftruncateSync(fd, Math.floor(pages / 2) * PAGE));
    expectReadLeadsToRepair(file);

    const human = cli(["--db", file, "check"]);
    expect(human.code, human.stderr).toBe(5);
    expect(human.stderr).toBe("");
    expect(human.stdout).toMatch(
      /^problems {2}.*truncated\.db:\n {2}- \*\*\* in database main \*\*\*\n {4}Tree /,
    );
    const more = Number(SHORTENED.exec(human.stdout)?.[1]);
    expect(more).toBeGreaterThan(50);
    expect(human.stdout).toMatch(
      /a repair would keep 5 sessions and [\d,]+ messages \(salvage, tried on a copy; nothing was changed\)/,
    );
    expect(human.stdout).toContain(HINT);
    expect(human.stdout.split("\n").length).toBeLessThan(30);

    const asJson = cli(["--db", file, "check", "--json"]);
    expect(asJson.code).toBe(5);
    const report = json(asJson);
    expect(report.ok).toBe(false);
    const lines = (report.problems as string[]).join("\n").split("\n");
    expect(lines.length).toBeGreaterThan(more);
    expect(report.repair).toMatchObject({ strategy: "salvage", sessions: 5 });
    expect(report.repair.messages).toBeGreaterThan(0);
    expect(report.repair.messages).toBeLessThan(1500);
    expectUnchanged(file, bytes);

    // repair --check-only diagnoses the same, shortened the same way.
    const repairJson = json(cli(["--db", file, "repair", "--check-only", "--json"]));
    expect((repairJson.problemsBefore as string[]).join("\n").split("\n")).toEqual(lines);
    const repairHuman = cli(["--db", file, "repair", "--check-only"]);
    expect(repairHuman.code).toBe(5);
    expect(Number(SHORTENED.exec(repairHuman.stdout)?.[1])).toBe(more);
    expect(repairHuman.stdout.split("\n").length).toBeLessThan(30);
    expectUnchanged(file, bytes);
  });

  it("on a disk with no room for a scratch copy, check still reports the corrupt store", (ctx) => {
    const mount = path.join(dir, "full");
    tmpfsOrSkip(ctx, mount, "size=2m");
    try {
      const file = path.join(mount, "state.db");
      fs.writeFileSync(file, fs.readFileSync(sound).subarray(0, Math.floor(pages / 2) * PAGE));
      // Take the rest of the file system with a file of the test's own, then give back room for
      // SQLite's -shm (the open needs it) but not for a copy of the store.
      const padFile = path.join(mount, "pad");
      const pad = fs.openSync(padFile, "a");
      try {
        for (let chunk = 64 * 1024; chunk >= 1; ) {
          try {
            fs.writeSync(pad, Buffer.alloc(chunk, 1));
          } catch (error) {
            if ((error as { code?: unknown }).code !== "ENOSPC") throw error;
            chunk = Math.floor(chunk / 2);
          }
        }
      } finally {
        fs.closeSync(pad);
      }
      fs.truncateSync(padFile, fs.statSync(padFile).size - 256 * 1024);
      const bytes = fs.readFileSync(file);
      const r = cli(["--db", file, "check"]);
      expectOneLineError(r, 5, "STORE_CORRUPT");
      expect(r.stderr).toContain(REPAIR);
      expect(fs.readFileSync(file).equals(bytes)).toBe(true);
      expect(
        fs.readdirSync(mount).filter((name) => name.includes(".repair") || name.includes(".salvage")),
      ).toEqual([]);
    } finally {
      unmount(mount);
    }
  });
});

describe("a store whose first page (the schema) is overwritten", () => {
  it("check reports that it does not open and that no repair brings it back; nothing changes", () => {
    // The 100-byte file header stays (SQLite still knows the file); the schema b-tree after it goes.
    const { file, bytes } = damaged("schema", (fd) =>
      fs.writeSync(fd, Buffer.alloc(PAGE - 100, 0x5a), 0, PAGE - 100, 100),
    );
    expectReadLeadsToRepair(file);

    const human = cli(["--db", file, "check"]);
    expect(human.code, human.stderr).toBe(5);
    expect(human.stderr).toBe("");
    expect(human.stdout).toMatch(/^problems {2}.*schema\.db:\n {2}- the store does not open: .*malformed/);
    expect(human.stdout).toContain(
      'no repair strategy made a copy of it sound, so "sessiondb repair" cannot bring it back; restore the store from a backup',
    );
    expect(human.stdout).not.toContain(HINT);

    const report = json(cli(["--db", file, "check", "--json"]));
    expect(report).toMatchObject({ ok: false, writable: false });
    expect(report.problems[0]).toMatch(/^the store does not open: /);
    expect(report.repair).toBeNull();
    expectUnchanged(file, bytes);
  });
});

describe("a store with pages zeroed in the middle", () => {
  it("opens; check finds the damage and leads to the repair", () => {
    const { file, bytes } = damaged("zeroed", (fd) =>
      fs.writeSync(fd, Buffer.alloc(8 * PAGE), 0, 8 * PAGE, Math.floor(pages / 2) * PAGE),
    );
    expectReadLeadsToRepair(file);
    const human = cli(["--db", file, "check"]);
    expect(human.code, human.stderr).toBe(5);
    expect(human.stdout).toMatch(
      /^problems {2}.*zeroed\.db:\n {2}- integrity_check: database disk image is malformed\n/,
    );
    expect(human.stdout).toContain(HINT);
    const report = json(cli(["--db", file, "check", "--json"]));
    expect(report.ok).toBe(false);
    expect(report.repair).toBeUndefined();
    expectUnchanged(file, bytes);
  });
});

describe("a store with two pages of an index written in each other's place", () => {
  it("check, repair --check-only and doctor show the first 10 lines of the integrity report and how many more; --json keeps them all", () => {
    const { root, pageSize } = bTreeRoot(sound, "idx_messages_timestamp");
    const { file, bytes } = damaged("swapped", (fd) => {
      const read = (page: number) => {
        const buffer = Buffer.alloc(pageSize);
        fs.readSync(fd, buffer, 0, pageSize, (page - 1) * pageSize);
        return buffer;
      };
      // The index's root is an interior page: its first cell's child and its right-most child
      // are leaves, in key order; each gets the other's bytes.
      const top = read(root);
      expect(top[0]).toBe(0x02);
      const first = top.readUInt32BE(top.readUInt16BE(12));
      const last = top.readUInt32BE(8);
      const [a, b] = [read(first), read(last)];
      fs.writeSync(fd, b, 0, pageSize, (first - 1) * pageSize);
      fs.writeSync(fd, a, 0, pageSize, (last - 1) * pageSize);
    });

    // Every row of the misplaced leaves is missing from the index: SQLite lists one per line.
    const doctorJson = cli(["--db", file, "doctor", "--json"]);
    expect(doctorJson.code, doctorJson.stderr).toBe(5);
    const finding = (json(doctorJson).findings as Array<{ check: string; detail: string }>).find(
      (f) => f.check === "integrity_check",
    );
    const lines = (finding?.detail ?? "").split("\n");
    expect(lines.length).toBeGreaterThan(50);
    expect(lines[0]).toMatch(/^row \d+ missing from index idx_messages_timestamp$/);
    const more = lines.length - 10;

    const doctor = cli(["--db", file, "doctor"]);
    expect(doctor.code, doctor.stderr).toBe(5);
    const report = doctor.stdout.split("\n");
    const at = report.findIndex((line) => line.startsWith("FAIL  integrity_check  "));
    const column = (report[at] as string).indexOf(lines[0] as string);
    expect(report[at]?.slice(column)).toBe(lines[0]);
    // The next 9 lines continue under the first, then the count of the rest.
    expect(report.slice(at + 1, at + 11)).toEqual([
      ...lines.slice(1, 10).map((line) => `${" ".repeat(column)}${line}`),
      `${" ".repeat(column)}… ${more} more lines (--json lists them all)`,
    ]);
    expect(report[at + 11]).toMatch(/^ok {4}fts /);
    expect(doctor.stdout).toContain(HINT);
    expect(report.length).toBeLessThan(30);

    const checkJson = cli(["--db", file, "check", "--json"]);
    expect(checkJson.code).toBe(5);
    expect(json(checkJson).problems).toEqual(lines);
    for (const args of [["check"], ["repair", "--check-only"]]) {
      const human = cli(["--db", file, ...args]);
      expect(human.code, human.stderr).toBe(5);
      expect(human.stdout).toContain(`- ${lines[9]}\n`);
      expect(human.stdout).not.toContain(`- ${lines[10]}\n`);
      expect(Number(SHORTENED.exec(human.stdout)?.[1])).toBe(more);
      expect(human.stdout.split("\n").length).toBeLessThan(30);
    }
    expectUnchanged(file, bytes);
  });
});

describe("a file that is not a SQLite database", () => {
  it("exits 5 without advice to repair it (it may be the wrong path, and repair cannot read it either)", () => {
    const { file } = damaged("notadb", (fd) => fs.writeSync(fd, Buffer.alloc(PAGE), 0, PAGE, 0));
    for (const args of [["stats"], ["check"], ["doctor"]]) {
      const r = cli(["--db", file, ...args]);
      expect(r.code, r.stderr).toBe(5);
      expect(`${r.stdout}${r.stderr}`).toMatch(/not a SQLite database/);
      expect(`${r.stdout}${r.stderr}`).not.toContain("sessiondb repair");
    }
  });
});
