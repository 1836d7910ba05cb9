/**
 * `sessiondb backup` and `sessiondb repair` as subprocesses on real stores: a backup of a corpus
 * store is complete, private and searchable; refused destinations exit 2 with nothing written;
 * repair of a damaged store swaps in a sound one and keeps the damaged original byte for byte;
 * --check-only and --output never touch the damaged file; a held lock exits 4.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { openStore, resolveDriver } from "@sessiondb/node";
import { beforeAll, describe, expect, it } from "vitest";
import {
  cli,
  corpusStore,
  digest,
  expectOneLineError,
  holdLock,
  json,
  storeState,
  tempDir,
} from "./helpers.js";

let dir: string;
let db: string;
let messages: number;

beforeAll(() => {
  dir = tempDir();
  db = path.join(dir, "state.db");
  messages = corpusStore(db, 2000).messages;
});

/** A closed store with one overwritten page of the messages table (0xFF: an invalid page type);
 * its one session is `session`. */
function damagedStore(name: string, session = "s"): { file: string; lostIds: number[] } {
  const file = path.join(dir, name);
  const store = openStore(file);
  store.createSession({ id: session, source: "test" });
  for (let n = 1; n <= 600; n++) store.appendMessage(session, { role: "user", content: `row ${n} kiwi` });
  store.close();
  // Which ids live on the chosen leaf, from SQLite's own page map (dbstat), before the damage.
  const probe = resolveDriver().open(file, { readOnly: true });
  const leaves = probe
    .prepare("SELECT pageno, ncell FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY path")
    .all()
    .map((row) => ({ pageno: Number(row.pageno), ncell: Number(row.ncell) }));
  const ids = probe
    .prepare("SELECT id FROM messages ORDER BY id")
    .all()
    .map((row) => Number(row.id));
  probe.close();
  const victim = Math.floor(leaves.length / 2);
  const before = leaves.slice(0, victim).reduce((sum, leaf) => sum + leaf.ncell, 0);
  const leaf = leaves[victim] as { pageno: number; ncell: number };
  const fd = fs.openSync(file, "r+");
  fs.writeSync(fd, Buffer.alloc(4096, 0xff), 0, 4096, (leaf.pageno - 1) * 4096);
  fs.closeSync(fd);
  return { file, lostIds: ids.slice(before, before + leaf.ncell) };
}

it("backup and repair document themselves", () => {
  for (const command of ["backup", "repair"]) {
    const r = cli([command, "--help"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Usage: sessiondb [--db PATH] ${command}`);
  }
  expect(cli(["--help"]).stdout).toMatch(/^ {2}backup .*\n {2}repair /m);
});

describe("backup", () => {
  it("copies the store: complete, 0600, searchable; --json describes it", () => {
    const dest = path.join(dir, "copy.db");
    const r = cli(["--db", db, "backup", dest, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const result = json(r);
    expect(result.path).toBe(dest);
    expect(["online-backup", "vacuum-into"]).toContain(result.method);
    expect(result.fts.state).toBe("ready");
    expect(result.bytes).toBe(fs.statSync(dest).size);
    // Progress goes to stderr (plain lines off a terminal) when the method reports pages, and
    // its 100 % line once.
    if (result.method === "online-backup") {
      expect(r.stderr).toMatch(/^backup .*[\d,]+\/[\d,]+ pages/m);
      expect(r.stderr.match(/100\.0%/g), r.stderr).toHaveLength(1);
    }
    expect(fs.statSync(dest).mode & 0o777).toBe(0o600);
    expect(storeState(dest)).toEqual({ ...storeState(db), check: 0 });
    expect(storeState(dest).messages).toBe(messages);
    const human = cli(["--db", db, "backup", path.join(dir, "copy2.db")]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^backed up .* to .*copy2\.db: .*, (wal|delete) mode/);
  });

  it("refuses the store, its -wal, a symlink to it, an existing file and a name with a stale -wal beside it: exit 2, nothing written", () => {
    const sub = path.join(dir, "refusals");
    fs.mkdirSync(sub);
    const file = path.join(sub, "state.db");
    fs.copyFileSync(db, file);
    fs.symlinkSync(file, path.join(sub, "link.db"));
    fs.writeFileSync(path.join(sub, "taken.db"), "mine");
    // The WAL of a database deleted while open: SQLite would replay it into a copy named stale.db.
    fs.writeFileSync(path.join(sub, "stale.db-wal"), "frames");
    // A read-only open of a WAL store leaves its -wal and -shm behind: let one happen first.
    expect(cli(["--db", file, "stats"]).code).toBe(0);
    const listing = fs.readdirSync(sub).sort();
    const bytes = digest(file);
    for (const dest of ["state.db", "state.db-wal", "link.db", "taken.db"]) {
      const r = cli(["--db", file, "backup", path.join(sub, dest)]);
      expectOneLineError(r, 2, "BACKUP_DESTINATION_REFUSED");
    }
    for (const overwrite of [[], ["--overwrite"]]) {
      const stale = cli(["--db", file, "backup", path.join(sub, "stale.db"), ...overwrite]);
      expectOneLineError(stale, 2, "BACKUP_DESTINATION_REFUSED");
      expect(stale.stderr).toContain("has stale.db-wal beside it, left by another database");
    }
    expect(fs.readdirSync(sub).sort()).toEqual(listing);
    expect(digest(file)).toBe(bytes);
    expect(fs.readFileSync(path.join(sub, "taken.db"), "utf8")).toBe("mine");
    const replaced = cli(["--db", file, "backup", path.join(sub, "taken.db"), "--overwrite"]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(storeState(path.join(sub, "taken.db")).messages).toBe(messages);
  });
});

describe("repair", () => {
  it("a sound store: exit 0, nothing to do, file unchanged", () => {
    const bytes = digest(db);
    const r = cli(["--db", db, "repair", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r).strategy).toBe("none");
    // Every key of the README's shape, the absent ones as null (JSON would drop undefined ones).
    expect(Object.keys(json(r)).sort()).toEqual(
      [
        "path",
        "problemsBefore",
        "strategy",
        "attempts",
        "countsBefore",
        "countsAfter",
        "lost",
        "lockOverridden",
        "outcome",
        "original",
        "output",
      ].sort(),
    );
    expect(json(r)).toMatchObject({ lockOverridden: null, original: null, output: null });
    expect(digest(db)).toBe(bytes);
  });

  it("--check-only and --output never touch the damaged file; a plain repair swaps and keeps the original", () => {
    const { file, lostIds } = damagedStore("damaged.db");
    const damaged = digest(file);

    const check = cli(["--db", file, "repair", "--check-only"]);
    expect(check.code, check.stderr).toBe(5);
    expect(check.stdout).toMatch(/problems found/);
    expect(check.stdout).toMatch(/--check-only: salvage would repair it; nothing was changed/);
    expect(digest(file)).toBe(damaged);

    const output = path.join(dir, "repaired-elsewhere.db");
    const written = json(cli(["--db", file, "repair", "--output", output, "--json"]));
    expect(written.outcome).toBe("written");
    expect(digest(file)).toBe(damaged);
    expect(storeState(output)).toMatchObject({ check: 0, messages: 600 - lostIds.length });

    const r = cli(["--db", file, "repair", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const report = json(r);
    expect(report.outcome).toBe("swapped");
    expect(report.strategy).toBe("salvage");
    expect(report.lost.messagesLost).toBe(lostIds.length);
    expect(report.lost.messageIdRanges).toEqual([[lostIds[0], lostIds[lostIds.length - 1]]]);
    expect(report.lost.sessionsWithLostMessages).toEqual(["s"]);
    expect(digest(report.original)).toBe(damaged);
    expect(fs.statSync(report.original).mode & 0o777).toBe(0o600);
    expect(storeState(file)).toMatchObject({ check: 0, messages: 600 - lostIds.length });
  });

  it("the human report names the strategy, the counts, the lost ids and their session (control characters shown visibly)", () => {
    // Ids refuse C0 controls but not C1: U+009B is CSI on a terminal that reads 8-bit controls.
    const { file, lostIds } = damagedStore("damaged2.db", "s\u009b2J");
    const r = cli(["--db", file, "repair"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `lost: ${lostIds.length} messages, ids ${lostIds[0]}-${lostIds[lostIds.length - 1]}`,
    );
    expect(r.stdout).toContain("from sessions s\\u009b2J\n");
    expect(r.stdout).not.toContain("\u009b");
    expect(r.stdout).toMatch(/messages \d+ → \d+|messages \? → \d+/);
    expect(r.stdout).toMatch(
      /repaired with salvage; the damaged original is kept at .*damaged2\.db\.corrupt-\d{8}T\d{6}Z/,
    );
  });

  it("rows whose content was written over on a sound page: check exits 5, repair loses exactly them, check exits 0 after", () => {
    const file = path.join(dir, "garbled.db");
    const store = openStore(file);
    store.createSession({ id: "g", source: "test" });
    for (let n = 1; n <= 300; n++) store.appendMessage("g", { role: "user", content: `row ${n} kiwi` });
    store.close();
    // "kiwi" of two rows' content becomes "ZZZZ": the record still parses, integrity_check and
    // foreign_key_check see nothing, only the FTS checksums disagree with the text.
    const garbled = [200, 250];
    const bytes = fs.readFileSync(file);
    const fd = fs.openSync(file, "r+");
    for (const id of garbled) {
      const needle = Buffer.from(`guserrow ${id} kiwi`);
      const at = bytes.indexOf(needle);
      expect(at, `row ${id}'s record`).toBeGreaterThan(0);
      expect(bytes.indexOf(needle, at + 1)).toBe(-1);
      fs.writeSync(fd, Buffer.from("ZZZZ"), 0, 4, at + needle.length - 4);
    }
    fs.closeSync(fd);
    const before = cli(["--db", file, "check"]);
    expect(before.code, before.stdout).toBe(5);
    expect(before.stdout).toMatch(/messages_fts.*integrity-check failed/);

    const r = cli(["--db", file, "repair", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const report = json(r);
    expect(report.strategy).toBe("salvage");
    expect(report.lost.messageIdRanges).toEqual(garbled.map((id) => [id, id]));
    expect(storeState(file)).toMatchObject({ check: 0, messages: 300 - garbled.length });
    withStoreCheck(file, garbled);
  });

  it("a store another process holds the write lock on: exit 4 naming the lock, nothing changed", async () => {
    const file = path.join(dir, "held.db");
    fs.copyFileSync(db, file);
    const bytes = digest(file);
    const holder = await holdLock(file, "immediate");
    try {
      const r = cli(["--db", file, "repair"]);
      expectOneLineError(r, 4, "STORE_IN_USE");
      expect(r.stderr).toMatch(/write lock/);
    } finally {
      await holder.release();
    }
    expect(digest(file)).toBe(bytes);
    expect(fs.readdirSync(dir).filter((name) => name.startsWith("held.db.repair"))).toEqual([]);
  });
});

/** Every message left in `file` reads as written; none of `lost` is there. */
function withStoreCheck(file: string, lost: number[]): void {
  const store = openStore(file, { readOnly: true });
  try {
    const kept = store.getMessages("g", { limit: 1000 });
    expect(kept.map((m) => m.id).filter((id) => lost.includes(id))).toEqual([]);
    for (const m of kept) expect(m.content).toBe(`row ${m.id} kiwi`);
  } finally {
    store.close();
  }
}
