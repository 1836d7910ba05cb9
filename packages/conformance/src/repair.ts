/**
 * Conformance: `repairStore` on stores damaged in known ways, each with every process closed:
 * FTS pages overwritten, index pages overwritten, a messages table page overwritten, the file
 * truncated. The expected loss is computed before the damage from SQLite's own `dbstat` view
 * (which page holds which cells, and each page's place in its b-tree), so the assertion is
 * "exactly the rows that lived on the pages destroyed", not a number copied from a run.
 * Rows are kept short so no message spills onto overflow pages, and ids are contiguous, so
 * "the ids on a leaf" is also "the ids between its neighbours".
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { type RepairOptions, type RepairReport, repairStore } from "@sessiondb/core";
import { lockExclusive, STORE_FILE_MODE } from "@sessiondb/core/testing";
import { ackedCount, holdAppender, waitForAcks } from "./appender.js";
import { assert, type ConformanceTarget, type FileFixture, fileFixtureTest, SAFE_SQLITE } from "./harness.js";

const SESSIONS = 6;
const PER_SESSION = 120;
const PAGE_SIZE = 4096;

interface PageInfo {
  name: string;
  path: string;
  pageno: number;
  pagetype: string;
  ncell: number;
}

/** A closed store with SESSIONS × PER_SESSION short messages, ids 1..N in order. */
function build(f: FileFixture): void {
  const store = f.open({ sqliteVersion: SAFE_SQLITE });
  for (let s = 0; s < SESSIONS; s++) store.createSession({ id: `s${s}`, source: "test" });
  for (let n = 0; n < SESSIONS * PER_SESSION; n++) {
    store.appendMessage(`s${n % SESSIONS}`, {
      role: n % 2 ? "assistant" : "user",
      content: `message ${n + 1} word${n % 13} tail`,
    });
  }
  store.close();
  assert.ok(!existsSync(`${f.file()}-wal`), "the closed store still has a -wal");
}

function pages(f: FileFixture): PageInfo[] {
  const conn = f.raw();
  try {
    return conn
      .prepare("SELECT name, path, pageno, pagetype, ncell FROM dbstat ORDER BY name, path")
      .all()
      .map((row) => ({
        name: String(row.name),
        path: String(row.path),
        pageno: Number(row.pageno),
        pagetype: String(row.pagetype),
        ncell: Number(row.ncell),
      }));
  } finally {
    conn.close();
  }
}

/** Ids of `table` (INTEGER key or rowid) in b-tree order, one array per leaf page. */
function idsByLeaf(
  f: FileFixture,
  all: PageInfo[],
  table: string,
  key: string,
): Map<number, Array<number | string>> {
  const conn = f.raw();
  const ids = conn
    .prepare(`SELECT ${key} AS k FROM ${table} ORDER BY rowid`)
    .all()
    .map((row) => row.k as number | string);
  conn.close();
  const byLeaf = new Map<number, Array<number | string>>();
  let at = 0;
  for (const page of all.filter((p) => p.name === table && p.pagetype === "leaf")) {
    byLeaf.set(page.pageno, ids.slice(at, at + page.ncell));
    at += page.ncell;
  }
  assert.equal(at, ids.length, `dbstat's leaves of ${table} do not account for every row`);
  return byLeaf;
}

/** Overwrite whole pages with 0xFF (an invalid page type: SQLite reports it as corrupt). */
function overwrite(path: string, pagenos: number[]): void {
  const fd = openSync(path, "r+");
  try {
    for (const pageno of pagenos)
      writeSync(fd, Buffer.alloc(PAGE_SIZE, 0xff), 0, PAGE_SIZE, (pageno - 1) * PAGE_SIZE);
  } finally {
    closeSync(fd);
  }
}

/** Write page `from` over page `to` (a misdirected write). */
function copyPage(path: string, from: number, to: number): void {
  const bytes = readFileSync(path);
  const fd = openSync(path, "r+");
  try {
    writeSync(
      fd,
      bytes.subarray((from - 1) * PAGE_SIZE, from * PAGE_SIZE),
      0,
      PAGE_SIZE,
      (to - 1) * PAGE_SIZE,
    );
  } finally {
    closeSync(fd);
  }
}

/** Files a repair must not leave behind in the store's folder: its temporary files and locks. */
function leftovers(f: FileFixture): string[] {
  return readdirSync(dirname(f.file())).filter((name) => name.includes(".tmp-"));
}

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

function expandRanges(ranges: Array<[number, number]>): number[] {
  return ranges.flatMap(([lo, hi]) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i));
}

/** A built store cut to 70 % of its pages (a repair would salvage it): its hash and its
 * folder's listing, to show that a refused or stopped repair changed neither. */
function truncatedStore(f: FileFixture): { damaged: string; folder: string[] } {
  build(f);
  truncateSync(f.file(), Math.floor((statSync(f.file()).size / PAGE_SIZE) * 0.7) * PAGE_SIZE);
  return { damaged: sha(f.file()), folder: readdirSync(dirname(f.file())).sort() };
}

/** Whichever strategy won, every row is there and the report says nothing was lost. */
function assertNothingLost(report: RepairReport): void {
  assert.ok(report.strategy !== undefined && report.strategy !== "none", JSON.stringify(report.attempts));
  assert.deepEqual(report.countsAfter, report.countsBefore);
  assert.equal(report.countsAfter?.messages, SESSIONS * PER_SESSION);
  if (report.lost) {
    assert.deepEqual(report.lost.messageIdRanges, []);
    assert.deepEqual(report.lost.sessions, []);
    assert.deepEqual(report.lost.unreadable, []);
  }
}

export function repairSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fileFixtureTest(target);
  const host = target.host;
  const options = (extra: Partial<RepairOptions> = {}): RepairOptions => {
    if (!host) throw new Error("unreachable: checked by the caller");
    return { driver: target.driver, host, ...extra };
  };
  const needsHost = (name: string) => {
    if (host) return false;
    console.log(`[conformance] ${target.name}: skipped "${name}": the target has no host`);
    return true;
  };

  /** Repair for real (swap), then check the kept original and the repaired store. */
  async function repairAndCheck(f: FileFixture, damagedSha: string): Promise<RepairReport> {
    const report = await repairStore(f.file(), options({ now: () => Date.UTC(2026, 0, 2, 3, 4, 5) }));
    assert.equal(report.outcome, "swapped", JSON.stringify(report.attempts));
    assert.equal(report.original, `${f.file()}.corrupt-20260102T030405Z`);
    assert.equal(sha(report.original as string), damagedSha, "the kept original is not the damaged file");
    assert.equal(statSync(report.original as string).mode & 0o777, STORE_FILE_MODE);
    assert.equal(statSync(f.file()).mode & 0o777, STORE_FILE_MODE);
    const store = f.open({ sqliteVersion: SAFE_SQLITE });
    assert.deepEqual(store.checkIntegrity(), { ok: true, problems: [] });
    assert.equal(store.ftsStatus().state, "ready");
    assert.equal(store.messageCount(), report.countsAfter?.messages);
    const id = store.appendMessage("s1", { role: "user", content: "after repair quokka" });
    assert.equal(store.search("quokka").hits[0]?.messageId, id);
    store.close();
    return report;
  }

  describe("repair", () => {
    test("a sound store needs no repair and is left byte for byte as it was", async (f) => {
      if (needsHost("repair a sound store")) return;
      build(f);
      const before = sha(f.file());
      const report = await repairStore(f.file(), options());
      assert.equal(report.strategy, "none");
      assert.equal(report.outcome, "unchanged");
      assert.deepEqual(report.problemsBefore, []);
      assert.equal(report.countsBefore.messages, SESSIONS * PER_SESSION);
      assert.equal(sha(f.file()), before);
    });

    test("overwritten FTS pages: check-only changes nothing; repair loses no row", async (f) => {
      if (needsHost("repair overwritten FTS pages")) return;
      build(f);
      const all = pages(f);
      const ftsLeaves = all
        .filter((p) => p.name === "messages_fts_data" && p.pagetype === "leaf")
        .map((p) => p.pageno);
      assert.ok(ftsLeaves.length >= 2, "the FTS index is too small to damage");
      overwrite(f.file(), ftsLeaves.slice(0, 2));
      const damaged = sha(f.file());

      const check = await repairStore(f.file(), options({ checkOnly: true }));
      assert.ok(check.problemsBefore.length > 0, "the damage was not detected");
      assert.equal(check.outcome, "unchanged");
      assert.ok(check.strategy !== undefined && check.strategy !== "none", JSON.stringify(check.attempts));
      assert.equal(sha(f.file()), damaged, "check-only changed the damaged file");

      assertNothingLost(await repairAndCheck(f, damaged));
    });

    test("overwritten index pages: repaired from the tables with every row", async (f) => {
      if (needsHost("repair overwritten index pages")) return;
      build(f);
      const leaves = pages(f).filter((p) => p.name === "idx_messages_session" && p.pagetype === "leaf");
      assert.ok(leaves.length >= 2, "the index is too small to damage");
      overwrite(f.file(), [leaves[1]?.pageno as number]);
      const damaged = sha(f.file());
      const report = await repairAndCheck(f, damaged);
      assert.ok(report.problemsBefore.length > 0);
      assertNothingLost(report);
    });

    test("a messages table page overwritten: salvage loses exactly the rows on that page and names them", async (f) => {
      if (needsHost("salvage a messages page")) return;
      build(f);
      const all = pages(f);
      const byLeaf = idsByLeaf(f, all, "messages", "id");
      const leaves = [...byLeaf.keys()];
      assert.ok(leaves.length >= 5, "messages too small to damage a middle page");
      const victim = leaves[Math.floor(leaves.length / 2)] as number;
      const expected = (byLeaf.get(victim) ?? []).map(Number);
      const conn = f.raw();
      const expectedSessions = [
        ...new Set(
          conn
            .prepare(`SELECT session_id FROM messages WHERE id BETWEEN ? AND ?`)
            .all(Math.min(...expected), Math.max(...expected))
            .map((row) => String(row.session_id)),
        ),
      ].sort();
      conn.close();
      overwrite(f.file(), [victim]);
      const damaged = sha(f.file());
      const report = await repairAndCheck(f, damaged);
      assert.equal(report.strategy, "salvage", JSON.stringify(report.attempts));
      const lost = report.lost;
      assert.ok(lost);
      assert.deepEqual(expandRanges(lost.messageIdRanges), expected);
      assert.equal(lost.messagesLost, expected.length);
      assert.deepEqual(lost.sessionsWithLostMessages, expectedSessions);
      assert.deepEqual(lost.sessions, []);
      assert.equal(report.countsAfter?.messages, SESSIONS * PER_SESSION - expected.length);
      assert.equal(report.countsAfter?.sessions, SESSIONS);
      // Every surviving row is intact, and a new append gets an id above every old one.
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      for (const s of [0, 3]) {
        for (const m of store.getMessages(`s${s}`, { limit: 1000 })) {
          assert.equal(m.content, `message ${m.id} word${(m.id - 1) % 13} tail`);
        }
      }
      assert.ok(store.appendMessage("s0", { role: "user", content: "new" }) > SESSIONS * PER_SESSION);
    });

    test("a long message's last overflow page written over: counted lost, never copied as sound by the vacuum", async (f) => {
      if (needsHost("a damaged overflow chain")) return;
      build(f);
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      const long = store.appendMessage("s2", { role: "user", content: `long ${"x".repeat(20_000)} end` });
      store.close();
      const chain = pages(f).filter((p) => p.name === "messages" && p.pagetype === "overflow");
      assert.ok(chain.length >= 4, `the long message should span overflow pages: ${chain.length}`);
      // The chain's last page (dbstat lists a cell's overflow pages in order): its next-page
      // pointer becomes nonsense, which integrity_check names; the payload still "reads".
      overwrite(f.file(), [(chain[chain.length - 1] as PageInfo).pageno]);
      const report = await repairAndCheck(f, sha(f.file()));
      assert.equal(report.strategy, "salvage", JSON.stringify(report.attempts));
      const vacuum = report.attempts.find((attempt) => attempt.strategy === "vacuum");
      assert.equal(vacuum?.ok, false);
      assert.match(vacuum?.problems[0] ?? "", new RegExp(`not run: .*damaged \\(messages ${long}\\)`));
      assert.deepEqual(report.lost?.messageIdRanges, [[long, long]]);
      assert.equal(report.lost?.messagesLost, 1);
      assert.deepEqual(report.lost?.sessionsWithLostMessages, ["s2"]);
      assert.equal(report.countsAfter?.messages, SESSIONS * PER_SESSION);
      const repaired = f.open({ sqliteVersion: SAFE_SQLITE });
      for (const m of repaired.getMessages("s2", { limit: 1000 })) {
        assert.equal(m.content, `message ${m.id} word${(m.id - 1) % 13} tail`);
      }
      repaired.close();
    });

    test("a messages interior page overwritten: the rows below it are read off their leaf pages, none lost", async (f) => {
      if (needsHost("salvage a messages page")) return;
      build(f);
      const all = pages(f);
      const root = all.find((p) => p.name === "messages" && p.path === "/");
      assert.equal(root?.pagetype, "internal", "messages has no interior root page: grow it");
      overwrite(f.file(), [root?.pageno as number]);
      const damaged = sha(f.file());
      const report = await repairAndCheck(f, damaged);
      assert.equal(report.strategy, "salvage", JSON.stringify(report.attempts));
      assert.deepEqual(report.lost?.messageIdRanges, []);
      assert.equal(report.countsAfter?.messages, SESSIONS * PER_SESSION);
      assert.equal(report.countsAfter?.sessions, SESSIONS);
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      for (let s = 0; s < SESSIONS; s++) {
        // repairAndCheck appended one message of its own after the repair.
        const messages = store
          .getMessages(`s${s}`, { limit: 1000 })
          .filter((m) => m.id <= SESSIONS * PER_SESSION);
        assert.equal(messages.length, PER_SESSION);
        for (const m of messages) {
          assert.equal(m.content, `message ${m.id} word${(m.id - 1) % 13} tail`);
          assert.equal(m.role, (m.id - 1) % 2 ? "assistant" : "user");
        }
      }
      assert.equal(store.search("word7").hits.length > 0, true);
      assert.ok(store.appendMessage("s0", { role: "user", content: "new" }) > SESSIONS * PER_SESSION);
    });

    test("rows read off leaf pages never bring back deleted ones (cells gone from a page, pages on the freelist)", async (f) => {
      if (needsHost("salvage a messages page")) return;
      build(f);
      const before = f.open({ sqliteVersion: SAFE_SQLITE });
      before.deleteSession("s2"); // every sixth message: cells taken off pages that stay
      before.close();
      const conn = f.raw();
      // Whole pages freed with their cells on them: DROP TABLE leaves a table's pages as they
      // were and puts them on the freelist. The copy has the messages table's very shape.
      const ddl = String(
        Object.values(conn.prepare("SELECT sql FROM sqlite_master WHERE name = 'messages'").get() ?? {})[0],
      );
      conn.exec(ddl.replace(/^CREATE TABLE "?messages"?/, "CREATE TABLE messages_copy"));
      conn.exec("INSERT INTO messages_copy SELECT * FROM messages WHERE id BETWEEN 301 AND 500");
      conn.exec("DELETE FROM messages WHERE id BETWEEN 301 AND 500");
      conn.exec("DROP TABLE messages_copy");
      const freed = Number(Object.values(conn.prepare("PRAGMA freelist_count").get() ?? {})[0]);
      const kept = conn
        .prepare("SELECT id FROM messages ORDER BY id")
        .all()
        .map((row) => Number(row.id));
      conn.close();
      assert.ok(freed > 0, "no page went to the freelist");
      const root = pages(f).find((p) => p.name === "messages" && p.path === "/");
      assert.equal(root?.pagetype, "internal", "messages has no interior root page: grow it");
      overwrite(f.file(), [root?.pageno as number]);
      const report = await repairAndCheck(f, sha(f.file()));
      assert.equal(report.strategy, "salvage", JSON.stringify(report.attempts));
      assert.deepEqual(report.lost?.messageIdRanges, []);
      assert.equal(report.countsAfter?.messages, kept.length);
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      assert.equal(store.getSession("s2"), undefined);
      const ids = [0, 1, 3, 4, 5]
        .flatMap((n) => store.getMessages(`s${n}`, { limit: 1000 }).map((m) => m.id))
        .filter((id) => id <= SESSIONS * PER_SESSION) // repairAndCheck appended one of its own
        .sort((a, b) => a - b);
      assert.deepEqual(ids, kept);
    });

    test("one leaf page written over another (a misdirected write): the salvage finishes, keeps every other row, names the lost ones", async (f) => {
      if (needsHost("salvage a messages page")) return;
      build(f);
      const all = pages(f);
      const byLeaf = idsByLeaf(f, all, "messages", "id");
      const leaves = [...byLeaf.keys()];
      const victim = leaves[2] as number;
      const source = leaves[Math.floor(leaves.length / 2)] as number;
      copyPage(f.file(), source, victim);
      const report = await repairAndCheck(f, sha(f.file()));
      assert.equal(report.strategy, "salvage", JSON.stringify(report.attempts));
      const lost = expandRanges(report.lost?.messageIdRanges ?? []);
      assert.deepEqual(lost, (byLeaf.get(victim) ?? []).map(Number));
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      let kept = 0;
      for (let s = 0; s < SESSIONS; s++) {
        for (const m of store.getMessages(`s${s}`, { limit: 1000 })) {
          if (m.id > SESSIONS * PER_SESSION) continue; // repairAndCheck's own
          assert.equal(m.content, `message ${m.id} word${(m.id - 1) % 13} tail`);
          assert.equal(m.sessionId, `s${(m.id - 1) % SESSIONS}`);
          kept++;
        }
      }
      assert.equal(kept + lost.length, SESSIONS * PER_SESSION);
    });

    test("a leaf page of long messages written over by another: only the overwritten page's rows are lost, the original's kept", async (f) => {
      if (needsHost("a misdirected write over overflow cells")) return;
      build(f);
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      const long = (id: number) => `long ${id} ${"y".repeat(6_000)} end`;
      const first = SESSIONS * PER_SESSION + 1;
      for (let i = 0; i < 8; i++) store.appendMessage("s1", { role: "user", content: long(first + i) });
      store.close();
      const byLeaf = idsByLeaf(f, pages(f), "messages", "id");
      const longLeaves = [...byLeaf].filter(([, ids]) => ids.some((id) => Number(id) >= first));
      assert.ok(longLeaves.length >= 3, `the long messages should span leaf pages: ${longLeaves.length}`);
      // The copy comes first in the b-tree, so the check meets it before the original.
      const [victim, victimIds] = longLeaves[0] as [number, unknown[]];
      const [source] = longLeaves[longLeaves.length - 1] as [number, unknown[]];
      copyPage(f.file(), source, victim);
      // Both copies of a cell point at one overflow chain: the check names the second one it
      // meets ("2nd reference to page"), which may be the intact original.
      const report = await repairAndCheck(f, sha(f.file()));
      assert.deepEqual(expandRanges(report.lost?.messageIdRanges ?? []), victimIds.map(Number));
      const repaired = f.open({ sqliteVersion: SAFE_SQLITE });
      for (const m of repaired.getMessages("s1", { limit: 1000 })) {
        if (m.id > first + 7) continue; // repairAndCheck's own
        assert.equal(m.content, m.id >= first ? long(m.id) : `message ${m.id} word${(m.id - 1) % 13} tail`);
      }
      repaired.close();
    });

    test("a leaf page claiming more cells than it has: its intact rows are kept, read off the page when a lookup misses them", async (f) => {
      if (needsHost("salvage a messages page")) return;
      build(f);
      const all = pages(f);
      const byLeaf = idsByLeaf(f, all, "messages", "id");
      const leaves = [...byLeaf.keys()];
      const victim = leaves[Math.floor(leaves.length / 2)] as number;
      const fd = openSync(f.file(), "r+");
      const header = Buffer.alloc(2);
      readSync(fd, header, 0, 2, (victim - 1) * PAGE_SIZE + 3);
      header.writeUInt16BE(header.readUInt16BE(0) + 3);
      writeSync(fd, header, 0, 2, (victim - 1) * PAGE_SIZE + 3);
      closeSync(fd);
      const report = await repairAndCheck(f, sha(f.file()));
      assert.equal(report.strategy, "salvage", JSON.stringify(report.attempts));
      const lost = new Set(expandRanges(report.lost?.messageIdRanges ?? []));
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      const present = new Set<number>();
      for (let s = 0; s < SESSIONS; s++) {
        for (const m of store.getMessages(`s${s}`, { limit: 1000 })) {
          if (m.id > SESSIONS * PER_SESSION) continue;
          assert.equal(m.content, `message ${m.id} word${(m.id - 1) % 13} tail`);
          present.add(m.id);
        }
      }
      // Every row is either back, intact, or named as lost: none is dropped without a word.
      for (let id = 1; id <= SESSIONS * PER_SESSION; id++) {
        assert.ok(present.has(id) || lost.has(id), `message ${id} is neither kept nor reported lost`);
      }
      // The victim's rows sit on a page that still parses: they are kept.
      for (const id of byLeaf.get(victim) ?? []) assert.ok(present.has(Number(id)), `message ${id}`);
    });

    test("text holding a NUL is salvaged whole on every binding (some read TEXT only up to a NUL)", async (f) => {
      if (needsHost("salvage a messages page")) return;
      build(f);
      const before = f.open({ sqliteVersion: SAFE_SQLITE });
      const nul = ["tool out\u0000with nul 1", "\u0000leading", "two\u0000\u0000nuls"];
      const ids = nul.map((content) => before.appendMessage("s0", { role: "tool", toolName: "t", content }));
      before.close();
      const all = pages(f);
      const byLeaf = idsByLeaf(f, all, "messages", "id");
      const leaves = [...byLeaf.keys()];
      const victim = leaves[Math.floor(leaves.length / 2)] as number;
      assert.ok(!(byLeaf.get(victim) ?? []).some((id) => ids.includes(Number(id))));
      overwrite(f.file(), [victim]);
      const report = await repairAndCheck(f, sha(f.file()));
      assert.equal(report.strategy, "salvage", JSON.stringify(report.attempts));
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      const byId = new Map(store.getMessages("s0", { limit: 1000 }).map((m) => [m.id, m.content]));
      assert.deepEqual(
        ids.map((id) => byId.get(id)),
        nul,
      );
    });

    test("a truncated file: salvage keeps every row on the pages left and reports the rest", async (f) => {
      if (needsHost("salvage a truncated file")) return;
      build(f);
      const all = pages(f);
      const byLeaf = idsByLeaf(f, all, "messages", "id");
      const total = statSync(f.file()).size / PAGE_SIZE;
      const keep = Math.floor(total * 0.7);
      // A row survives when its leaf page survives: the ones whose interior pages were cut are
      // read off the leaves.
      const expectedLost = all
        .filter((p) => p.name === "messages" && p.pagetype === "leaf" && p.pageno > keep)
        .flatMap((p) => (byLeaf.get(p.pageno) ?? []).map(Number))
        .sort((a, b) => a - b);
      assert.ok(expectedLost.length > 0, "the cut loses no message: move it");
      truncateSync(f.file(), keep * PAGE_SIZE);
      const damaged = sha(f.file());
      const report = await repairAndCheck(f, damaged);
      assert.equal(report.strategy, "salvage", JSON.stringify(report.attempts));
      assert.deepEqual(expandRanges(report.lost?.messageIdRanges ?? []), expectedLost);
      assert.equal(report.countsAfter?.messages, SESSIONS * PER_SESSION - expectedLost.length);
    });

    test("wrong input to repairStore is a rejection naming the field (INVALID_INPUT); a damaged store and its folder stay as they were", async (f) => {
      if (needsHost("wrong input to repairStore")) return;
      const { damaged, folder } = truncatedStore(f);
      const full = options();
      const bad: Array<[unknown, unknown, string]> = [
        [5, full, "repairStore.path"],
        [null, full, "repairStore.path"],
        [`${f.file()}\uD800`, full, "repairStore.path"],
        [f.file(), "checkOnly", "repairStore options"],
        [f.file(), 5, "repairStore options"],
        [f.file(), [], "repairStore options"],
        [f.file(), { ...full, checkOnly: "yes" }, "repairStore.checkOnly"],
        [f.file(), { ...full, checkOnly: 1 }, "repairStore.checkOnly"],
        [f.file(), { ...full, force: 1 }, "repairStore.force"],
        [f.file(), { ...full, output: 5 }, "repairStore.output"],
        // Joined by hand: Bun's path.join replaces a lone surrogate itself.
        [f.file(), { ...full, output: `${f.file("out")}\uDC00.db` }, "repairStore.output"],
        [f.file(), { ...full, now: 5 }, "repairStore.now"],
        [f.file(), { ...full, driver: undefined }, "repairStore.driver"],
        [f.file(), { ...full, host: {} }, "repairStore.host"],
      ];
      for (const [path, input, field] of bad) {
        let pending: Promise<unknown> | undefined;
        assert.doesNotThrow(
          () => {
            pending = repairStore(path as string, input as RepairOptions);
          },
          `repairStore(${String(path)}, …) threw synchronously`,
        );
        const error = await (pending as Promise<unknown>).then(
          () => assert.fail(`repairStore with a bad ${field} was not refused`),
          (caught: unknown) => caught as { code?: string; field?: string },
        );
        assert.equal(error.code, "INVALID_INPUT", `${field}: ${String(error)}`);
        assert.equal(error.field, field);
      }
      assert.equal(sha(f.file()), damaged, "a refused repair changed the store");
      assert.deepEqual(readdirSync(dirname(f.file())).sort(), folder);
      // null options fields are the defaults.
      const report = await repairStore(f.file(), {
        ...full,
        checkOnly: true,
        output: null,
        force: null,
      } as never);
      assert.equal(report.outcome, "unchanged", JSON.stringify(report));
      assert.equal(sha(f.file()), damaged);
    });

    test("an abort stops a repair between its steps: AbortError, the damaged store and its folder as they were", async (f) => {
      if (needsHost("an aborted repair")) return;
      const { damaged, folder } = truncatedStore(f);
      // Aborted before the call, and aborted from a timer once the repair has begun.
      const early = new AbortController();
      early.abort();
      const late = new AbortController();
      for (const controller of [early, late]) {
        const pending = repairStore(f.file(), options({ signal: controller.signal }));
        if (controller === late) setTimeout(() => late.abort(), 0);
        await assert.rejects(pending, { name: "AbortError" });
        assert.equal(sha(f.file()), damaged, "an aborted repair changed the store");
        assert.deepEqual(readdirSync(dirname(f.file())).sort(), folder);
      }
    });

    test("check-only leaves the store's folder as it found it: no new -wal, -shm, lock link or scratch file; the same bytes", async (f) => {
      if (needsHost("check-only leaves the folder as it was")) return;
      const wal = `${f.file()}-wal`;
      // The bytes of the store and of its WAL, and every name in its folder.
      const state = () => ({
        names: readdirSync(dirname(f.file())).sort(),
        db: sha(f.file()),
        wal: existsSync(wal) ? sha(wal) : undefined,
      });
      const check = async (what: string) => {
        const before = state();
        const report = await repairStore(f.file(), options({ checkOnly: true }));
        assert.deepEqual(state(), before, `check-only of ${what}`);
        return report;
      };
      build(f);
      await check("a sound, closed WAL store");
      const ftsLeaf = pages(f).find((p) => p.name === "messages_fts_data" && p.pagetype === "leaf");
      overwrite(f.file(), [ftsLeaf?.pageno as number]);
      await check("a WAL store with an FTS page overwritten");
      // The schema page's b-tree header: the store no longer opens at all.
      const fd = openSync(f.file(), "r+");
      writeSync(fd, Buffer.alloc(100, 0xa5), 0, 100, 100);
      closeSync(fd);
      await check("a WAL store that does not open");
      // A store whose last commit is only in its WAL, copied without its -shm: the WAL is read and kept.
      const live = f.file("live.db");
      const writer = f.open({ sqliteVersion: SAFE_SQLITE }, live);
      writer.createSession({ id: "s", source: "test" });
      writer.appendMessage("s", { role: "user", content: "only in the WAL" });
      copyFileSync(live, f.file());
      copyFileSync(`${live}-wal`, wal);
      writer.close();
      assert.ok(statSync(wal).size > 0 && !existsSync(`${f.file()}-shm`));
      const report = await check("a WAL store with commits in its -wal and no -shm");
      assert.equal(report.countsBefore.messages, 1, "the check did not read the WAL");
    });

    test("a WAL left by a killed writer: the check reads it and writes neither the store nor its WAL", async (f) => {
      const appender = target.appender;
      if (needsHost("repair beside a killed writer's WAL")) return;
      if (!appender) {
        console.log(
          `[conformance] ${target.name}: skipped "repair beside a killed writer's WAL": the target has no appender`,
        );
        return;
      }
      f.open({ sqliteVersion: SAFE_SQLITE }).close();
      const ledger = f.file("ledger.txt");
      const child = await appender({ path: f.file(), sessionId: "child", ledger });
      await waitForAcks(ledger, 50);
      await child.stop(); // SIGKILL: no close, no checkpoint
      const acked = ackedCount(ledger);
      const wal = `${f.file()}-wal`;
      assert.ok(existsSync(wal) && statSync(wal).size > 0, "the killed writer left no WAL to test with");
      const folder = () => readdirSync(dirname(f.file())).sort();
      const before = { db: sha(f.file()), wal: sha(wal), names: folder() };
      const report = await repairStore(f.file(), options({ checkOnly: true }));
      assert.equal(report.strategy, "none", JSON.stringify(report.problemsBefore));
      const counted = report.countsBefore.messages ?? -1;
      assert.ok(counted >= acked && counted <= acked + 1, `${counted} messages, ${acked} acknowledged`);
      assert.deepEqual(
        { db: sha(f.file()), wal: sha(wal), names: folder() },
        before,
        "repair wrote the store or its WAL, or left a file beside them",
      );
    });

    test("page 1's b-tree header overwritten: salvage recovers nothing, so the original stays in place", async (f) => {
      if (needsHost("salvage that recovers nothing")) return;
      build(f);
      // The 100 bytes after the file header: sqlite_schema's page header and cell pointers.
      const fd = openSync(f.file(), "r+");
      writeSync(fd, Buffer.alloc(100, 0xa5), 0, 100, 100);
      closeSync(fd);
      const damaged = sha(f.file());
      const report = await repairStore(f.file(), options({ now: () => Date.UTC(2026, 0, 2, 3, 4, 5) }));
      assert.equal(report.strategy, undefined, JSON.stringify(report.attempts));
      assert.equal(report.outcome, "unchanged");
      const salvaged = report.attempts.find((attempt) => attempt.strategy === "salvage");
      assert.equal(salvaged?.ok, false, JSON.stringify(report.attempts));
      assert.match(salvaged?.problems.join("; ") ?? "", /recovered no row/);
      assert.equal(report.lost?.unreadable.length, 3, JSON.stringify(report.lost));
      assert.equal(sha(f.file()), damaged, "the damaged store was replaced or written");
      assert.ok(!existsSync(`${f.file()}.corrupt-20260102T030405Z`), "the original was moved aside");
      assert.deepEqual(leftovers(f), []);
    });

    test("a WAL store another connection has open, idle, is refused; nothing is swapped; force overrides", async (f) => {
      if (needsHost("repair refuses a store open elsewhere")) return;
      build(f);
      const ftsLeaf = pages(f).find((p) => p.name === "messages_fts_data" && p.pagetype === "leaf");
      overwrite(f.file(), [ftsLeaf?.pageno as number]);
      const damaged = sha(f.file());
      // An idle connection that has read once: no transaction, no write lock, only its SHARED lock.
      const idle = f.raw();
      idle.prepare("SELECT count(*) FROM sessions").get();
      for (const extra of [{}, { checkOnly: true }]) {
        await assert.rejects(
          repairStore(f.file(), options(extra)),
          (error: Error & { code?: string; lock?: string }) => {
            assert.equal(error.code, "STORE_IN_USE", error.message);
            assert.match(error.lock ?? "", /has the store open/);
            return true;
          },
        );
      }
      assert.equal(sha(f.file()), damaged, "the refused repair changed the store");
      assert.deepEqual(leftovers(f), [], "the refused repair left files behind");
      assert.ok(!existsSync(`${f.file()}.corrupt-20260102T030405Z`));
      const forced = await repairStore(f.file(), options({ force: true, checkOnly: true }));
      assert.match(forced.lockOverridden ?? "", /has the store open/);
      idle.close();
      assertNothingLost(await repairAndCheck(f, damaged));
      assert.deepEqual(leftovers(f), []);
    });

    test("the swap's EXCLUSIVE lock is refused while others have the store open, then keeps newcomers out and writes nothing", (f) => {
      if (needsHost("the swap's exclusive lock") || !host) return;
      build(f);
      const writer = f.open({ sqliteVersion: SAFE_SQLITE });
      writer.appendMessage("s1", { role: "user", content: "in the WAL" });
      const idle = f.raw();
      idle.prepare("SELECT count(*) FROM sessions").get();
      writer.close();
      assert.equal(
        lockExclusive(target.driver, host, f.file()).held,
        false,
        "taken while a connection was open",
      );
      idle.close();
      const before = sha(f.file());
      const exclusive = lockExclusive(target.driver, host, f.file());
      assert.ok(exclusive.held, "not taken with every connection closed");
      const newcomer = f.raw();
      try {
        newcomer.exec("PRAGMA busy_timeout = 0");
        assert.throws(
          () => newcomer.prepare("SELECT count(*) FROM sessions").get(),
          (error: Error & { code?: string }) => /BUSY|LOCKED/.test(error.code ?? ""),
        );
        exclusive.release();
        const row = newcomer.prepare("SELECT count(*) AS n FROM messages").get();
        assert.equal(Number(row?.n), SESSIONS * PER_SESSION + 1);
      } finally {
        newcomer.close();
      }
      assert.equal(sha(f.file()), before, "the lock wrote the store");
      assert.deepEqual(leftovers(f), []);
    });

    test("a store a child process is writing to is always refused", async (f) => {
      const appender = target.appender;
      if (needsHost("repair refuses a store a child writes")) return;
      if (!appender) {
        console.log(
          `[conformance] ${target.name}: skipped "repair refuses a store a child writes": the target has no appender`,
        );
        return;
      }
      f.open({ sqliteVersion: SAFE_SQLITE }).close();
      const ledger = f.file("ledger.txt");
      const child = await appender({ path: f.file(), sessionId: "child", ledger });
      try {
        await waitForAcks(ledger, 5);
        // Whether or not the child is inside a transaction at that moment, its open connection is seen.
        for (let attempt = 0; attempt < 10; attempt++) {
          await assert.rejects(
            repairStore(f.file(), options({ checkOnly: true })),
            /STORE_IN_USE|another connection/,
          );
        }
      } finally {
        await child.stop();
      }
      assert.deepEqual(leftovers(f), []);
    });

    test("a damaged WAL store a child process has open, idle between two appends, is refused; nothing is swapped", async (f) => {
      const appender = target.appender;
      if (needsHost("repair refuses a store a child has open")) return;
      if (!appender) {
        console.log(
          `[conformance] ${target.name}: skipped "repair refuses a store a child has open": the target has no appender`,
        );
        return;
      }
      build(f);
      const ledger = f.file("ledger.txt");
      const child = await appender({ path: f.file(), sessionId: "child", ledger });
      try {
        await waitForAcks(ledger, 20);
        await holdAppender(ledger);
        // The child's rows into the file, so the damage below is what every reader sees.
        const conn = f.raw();
        conn.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        conn.close();
        const ftsLeaf = pages(f).find((p) => p.name === "messages_fts_data" && p.pagetype === "leaf");
        overwrite(f.file(), [ftsLeaf?.pageno as number]);
        const damaged = sha(f.file());
        for (const extra of [{}, { checkOnly: true }]) {
          await assert.rejects(
            repairStore(f.file(), options({ ...extra, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) })),
            (error: Error & { code?: string; lock?: string }) => {
              assert.equal(error.code, "STORE_IN_USE", error.message);
              assert.match(error.lock ?? "", /has the store open/);
              return true;
            },
          );
        }
        assert.equal(sha(f.file()), damaged, "the refused repair changed the store");
        assert.ok(!existsSync(`${f.file()}.corrupt-20260102T030405Z`), "the store was swapped");
        assert.deepEqual(leftovers(f), [], "the refused repair left files behind");
      } finally {
        await child.stop();
      }
      // The child gone, the same repair runs and keeps every row, the child's included.
      const report = await repairStore(f.file(), options({ now: () => Date.UTC(2026, 0, 2, 3, 4, 5) }));
      assert.equal(report.outcome, "swapped", JSON.stringify(report.attempts));
      assert.deepEqual(report.countsAfter, report.countsBefore);
      assert.equal(report.countsAfter?.messages, SESSIONS * PER_SESSION + ackedCount(ledger));
      assert.deepEqual(leftovers(f), []);
    });

    test("a store whose write lock another connection holds is refused with the lock named; force overrides", async (f) => {
      if (needsHost("repair refuses a store in use")) return;
      build(f);
      const holder = f.raw();
      holder.exec("BEGIN IMMEDIATE");
      const before = sha(f.file());
      await assert.rejects(
        repairStore(f.file(), options()),
        (error: Error & { code?: string; lock?: string }) => {
          assert.equal(error.code, "STORE_IN_USE");
          assert.match(error.lock ?? "", /write lock/);
          return true;
        },
      );
      const forced = await repairStore(f.file(), options({ force: true, checkOnly: true }));
      assert.match(forced.lockOverridden ?? "", /write lock/);
      holder.exec("ROLLBACK");
      assert.equal(sha(f.file()), before);
    });
  });
}
