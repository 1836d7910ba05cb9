/**
 * Conformance: repair on a row whose own bytes the damage changed without breaking the page. Four
 * bytes of one message's `session_id` written over in its table leaf: the page still parses, the
 * row still reads, but it now belongs to a session that does not exist. integrity_check names it
 * only as "row N missing from index"; `PRAGMA foreign_key_check` names it as an orphan. Neither a
 * REINDEX (which files the row under its new session) nor a VACUUM may then pass for sound: the
 * row is reported lost, and the repaired store's checkIntegrity agrees with foreign_key_check.
 */
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { repairStore } from "../repair-on-demand.js";
import { assert, type ConformanceTarget, type FileFixture, fileFixtureTest, SAFE_SQLITE } from "./harness.js";

const PER_SESSION = 100;
const SESSION_IDS = ["sess-aaaa", "sess-bbbb"];

/** A closed store with two sessions of PER_SESSION messages each, ids 1..200 in order. */
function build(f: FileFixture): void {
  const store = f.open({ sqliteVersion: SAFE_SQLITE });
  for (const id of SESSION_IDS) store.createSession({ id, source: "test" });
  for (let n = 1; n <= PER_SESSION * SESSION_IDS.length; n++) {
    store.appendMessage(SESSION_IDS[(n - 1) % SESSION_IDS.length] as string, {
      role: "user",
      content: `m${n} alpha`,
    });
  }
  store.close();
}

/** Overwrite the first four bytes of message `id`'s session_id in its table record (the record
 * holds session_id, role and content next to each other). */
function garbleSessionOf(path: string, id: number, sessionId: string): void {
  const needle = Buffer.from(`${sessionId}user${`m${id} alpha`}`);
  const bytes = readFileSync(path);
  const at = bytes.indexOf(needle);
  assert.ok(at > 0, `message ${id}'s record is not in the file`);
  assert.equal(bytes.indexOf(needle, at + 1), -1, `message ${id}'s record is in the file twice`);
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, Buffer.from("ZZZZ"), 0, 4, at);
  } finally {
    closeSync(fd);
  }
}

export function repairRowsSuite(target: ConformanceTarget): void {
  const { describe } = target;
  const test = fileFixtureTest(target);
  const host = target.host;

  describe("repair of a row's own bytes", () => {
    test("a message moved into a session that does not exist is reported lost, never sound", async (f) => {
      if (!host) {
        console.log(
          `[conformance] ${target.name}: skipped "repair of a row's bytes": the target has no host`,
        );
        return;
      }
      build(f);
      const victim = 150;
      const owner = SESSION_IDS[(victim - 1) % SESSION_IDS.length] as string;
      garbleSessionOf(f.file(), victim, owner);
      const damaged = f.open({ sqliteVersion: SAFE_SQLITE });
      const before = damaged.checkIntegrity();
      damaged.close();
      assert.equal(before.ok, false, "the damage went unseen");
      assert.ok(
        before.problems.some((p) => p.kind === "orphan-row" && p.table === "messages" && p.rowid === victim),
        JSON.stringify(before.problems),
      );

      const report = await repairStore(f.file(), { driver: target.driver, host });
      assert.equal(report.outcome, "swapped", JSON.stringify(report.attempts));
      for (const attempt of report.attempts.filter((a) => a.strategy !== "salvage")) {
        assert.equal(attempt.ok, false, `${attempt.strategy} passed the orphan as sound`);
      }
      assert.deepEqual(report.lost?.messageIdRanges, [[victim, victim]], JSON.stringify(report.lost));
      assert.equal(report.lost?.messagesLost, 1);
      assert.deepEqual(report.lost?.sessions, []);
      assert.equal(report.countsAfter?.messages, PER_SESSION * SESSION_IDS.length - 1);
      assert.equal(report.countsAfter?.sessions, SESSION_IDS.length);

      const store = f.open({ sqliteVersion: SAFE_SQLITE });
      assert.deepEqual(store.checkIntegrity(), { ok: true, problems: [] });
      const raw = f.raw();
      assert.deepEqual(raw.prepare("PRAGMA foreign_key_check").all(), []);
      raw.close();
      const kept = store.getMessages(owner, { limit: 1000 });
      assert.equal(kept.length, PER_SESSION - 1);
      for (const m of kept) assert.equal(m.content, `m${m.id} alpha`);
      store.close();
    });
  });
}
