/**
 * Conformance: repair on rows whose own bytes the damage changed without breaking the page. Four
 * bytes of a message's `session_id` written over in its table leaf: the row still reads, but now
 * belongs to a session that does not exist — integrity_check names it only as "row N missing
 * from index", `PRAGMA foreign_key_check` as an orphan. Four bytes inside its content: only the
 * FTS checksums see it, and an FTS rebuild would index the garbled text and pass every check.
 * Such rows are reported lost, exactly, and never kept as sound; the repaired store's
 * checkIntegrity agrees with foreign_key_check. An index whose own entries for an intact row
 * changed names no row the other index vouches for.
 */
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { type Host, type RepairReport, repairStore } from "@sessiondb/core";
import { assert, type ConformanceTarget, type FileFixture, fileFixtureTest, SAFE_SQLITE } from "./harness.js";

const PER_SESSION = 100;
const SESSION_IDS = ["sess-aaaa", "sess-bbbb"];

/** The last message, a tool row (the one index it is in, the word index, is its only witness). */
const TOOL_ROW = PER_SESSION * SESSION_IDS.length + 1;

/** A closed store with two sessions of PER_SESSION messages each, ids 1..200 in order, and a
 * tool row (TOOL_ROW) in the first session. */
function build(f: FileFixture): void {
  const store = f.open({ sqliteVersion: SAFE_SQLITE });
  for (const id of SESSION_IDS) store.createSession({ id, source: "test" });
  for (let n = 1; n <= PER_SESSION * SESSION_IDS.length; n++) {
    store.appendMessage(SESSION_IDS[(n - 1) % SESSION_IDS.length] as string, {
      role: "user",
      content: contentOf(n),
    });
  }
  store.appendMessage(SESSION_IDS[0] as string, {
    role: "tool",
    content: contentOf(TOOL_ROW),
    toolName: "grep",
  });
  store.close();
}

/** Where message `id`'s table record (session_id, role and content side by side) starts in the
 * file; it must be there exactly once. */
function recordAt(bytes: Buffer, id: number, sessionId: string, role = "user"): number {
  const needle = Buffer.from(`${sessionId}${role}${contentOf(id)}`);
  const at = bytes.indexOf(needle);
  assert.ok(at > 0, `message ${id}'s record is not in the file`);
  assert.equal(bytes.indexOf(needle, at + 1), -1, `message ${id}'s record is in the file twice`);
  return at;
}

const contentOf = (id: number) => `m${id} alpha`;

/** Overwrite four bytes of message `id`'s record in place: the first of its session_id, or
 * (`inContent`) "alph" of its content, which then reads `m<id> ZZZZa` — valid UTF-8 of the same
 * length, so the page stays sound. Returns the page the record is on (4 KiB pages). */
function garble(path: string, id: number, sessionId: string, inContent = false, role = "user"): number {
  const at = recordAt(readFileSync(path), id, sessionId, role);
  const offset = at + (inContent ? sessionId.length + role.length + `m${id} `.length : 0);
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, Buffer.from("ZZZZ"), 0, 4, offset);
  } finally {
    closeSync(fd);
  }
  return Math.floor(offset / 4096);
}

const ownerOf = (id: number) => SESSION_IDS[(id - 1) % SESSION_IDS.length] as string;

/** Repair the damaged store at `f.file()` and check it lost exactly `lostIds` (sorted) and kept
 * every other message intact, with checkIntegrity agreeing with foreign_key_check. */
async function repairLosesExactly(
  target: ConformanceTarget,
  host: Host,
  f: FileFixture,
  lostIds: number[],
): Promise<RepairReport> {
  const report = await repairStore(f.file(), { driver: target.driver, host });
  assert.equal(report.outcome, "swapped", JSON.stringify(report.attempts));
  assert.equal(report.strategy, "salvage", JSON.stringify(report.attempts));
  for (const attempt of report.attempts.filter((a) => a.strategy !== "salvage")) {
    assert.equal(attempt.ok, false, `${attempt.strategy} passed a damaged row as sound`);
  }
  const ranges = lostIds.map((id) => [id, id] as [number, number]);
  const merged = ranges.reduce<Array<[number, number]>>((out, [id]) => {
    const last = out[out.length - 1];
    if (last && last[1] + 1 === id) last[1] = id;
    else out.push([id, id]);
    return out;
  }, []);
  assert.deepEqual(report.lost?.messageIdRanges, merged, JSON.stringify(report.lost));
  assert.equal(report.lost?.messagesLost, lostIds.length);
  assert.deepEqual(report.lost?.sessions, []);
  assert.equal(report.countsAfter?.messages, (report.countsBefore.messages ?? 0) - lostIds.length);
  assert.equal(report.countsAfter?.sessions, SESSION_IDS.length);

  const store = f.open({ sqliteVersion: SAFE_SQLITE });
  try {
    assert.deepEqual(store.checkIntegrity(), { ok: true, problems: [] });
    const raw = f.raw();
    assert.deepEqual(raw.prepare("PRAGMA foreign_key_check").all(), []);
    raw.close();
    for (const id of SESSION_IDS) {
      for (const m of store.getMessages(id, { limit: 1000 })) {
        assert.ok(!lostIds.includes(m.id), `message ${m.id} came back although it was reported lost`);
        assert.equal(m.content, contentOf(m.id), `message ${m.id} came back garbled`);
      }
    }
  } finally {
    store.close();
  }
  return report;
}

export function repairRowsSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fileFixtureTest(target);
  const host = target.host;
  const needsHost = (name: string): boolean => {
    if (host) return false;
    console.log(`[conformance] ${target.name}: skipped "${name}": the target has no host`);
    return true;
  };

  describe("repair of a row's own bytes", () => {
    test("a message moved into a session that does not exist is reported lost, never sound", async (f) => {
      if (needsHost("repair of a row's bytes") || !host) return;
      build(f);
      const victim = 150;
      garble(f.file(), victim, ownerOf(victim));
      const damaged = f.open({ sqliteVersion: SAFE_SQLITE });
      const before = damaged.checkIntegrity();
      damaged.close();
      assert.equal(before.ok, false, "the damage went unseen");
      assert.ok(
        before.problems.some((p) => p.kind === "orphan-row" && p.table === "messages" && p.rowid === victim),
        JSON.stringify(before.problems),
      );
      await repairLosesExactly(target, host, f, [victim]);
    });

    test("six rows of one leaf written over, in session_id and inside content: all six reported lost", async (f) => {
      if (needsHost("six garbled rows") || !host) return;
      build(f);
      const moved = [141, 144];
      const garbled = [142, 143, 145, 146];
      const pages = new Set([
        ...moved.map((id) => garble(f.file(), id, ownerOf(id))),
        ...garbled.map((id) => garble(f.file(), id, ownerOf(id), true)),
      ]);
      assert.equal(pages.size, 1, "the six records are not on one leaf");
      const damaged = f.open({ sqliteVersion: SAFE_SQLITE });
      const before = damaged.checkIntegrity();
      damaged.close();
      assert.ok(
        before.problems.some((p) => p.kind === "fts-index"),
        JSON.stringify(before.problems),
      );
      await repairLosesExactly(
        target,
        host,
        f,
        [...moved, ...garbled].sort((a, b) => a - b),
      );
    });

    test("content written over in a user and a tool row (the page sound): both reported lost", async (f) => {
      if (needsHost("garbled content") || !host) return;
      build(f);
      const tool = TOOL_ROW;
      garble(f.file(), 160, ownerOf(160), true);
      garble(f.file(), tool, SESSION_IDS[0] as string, true, "tool");
      const damaged = f.open({ sqliteVersion: SAFE_SQLITE });
      const before = damaged.checkIntegrity();
      damaged.close();
      // Nothing but the FTS checksums sees it: integrity_check and foreign_key_check are clean.
      assert.deepEqual(
        before.problems.map((p) => p.kind),
        before.problems.map(() => "fts-index"),
        JSON.stringify(before.problems),
      );
      assert.ok(before.problems.length > 0, "the damage went unseen");
      const report = await repairLosesExactly(target, host, f, [160, tool]);
      assert.deepEqual(report.lost?.sessionsWithLostMessages, [ownerOf(160), SESSION_IDS[0]].sort());
    });

    test("the word index alone contradicting a row (its own entries changed) loses nothing: the trigram index vouches for it", async (f) => {
      if (needsHost("one index contradicting a row") || !host) return;
      build(f);
      // The word index's entries for message 77 replaced by other words: the row is intact.
      const raw = f.raw();
      raw
        .prepare(
          "INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls) VALUES ('delete', ?, ?, NULL, NULL)",
        )
        .run(77, contentOf(77));
      raw
        .prepare(
          "INSERT INTO messages_fts(rowid, content, tool_name, tool_calls) VALUES (?, 'm77 bogus', NULL, NULL)",
        )
        .run(77);
      raw.close();
      const damaged = f.open({ sqliteVersion: SAFE_SQLITE });
      assert.ok(
        damaged.checkIntegrity().problems.some((p) => p.kind === "fts-index" && p.index === "messages_fts"),
        "the changed entries went unseen",
      );
      damaged.close();
      const report = await repairStore(f.file(), { driver: target.driver, host });
      assert.equal(report.strategy, "fts-rebuild", JSON.stringify(report.attempts));
      assert.equal(report.lost, undefined);
      assert.deepEqual(report.countsAfter, report.countsBefore);
      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      assert.deepEqual(store.checkIntegrity(), { ok: true, problems: [] });
      assert.equal(store.search("m77").hits[0]?.messageId, 77);
      store.close();
    });
  });
}
