/**
 * The ledger: what every role's report says happened — sessions created, appends intended,
 * acknowledged and refused, counts observed — read back from the report files.
 *
 * A cut is the ledger as it stood at one moment: the size of every report file then
 * (`reportCut`). Every line is one write(2) on an O_APPEND descriptor, so the bytes below a
 * file's size at that moment are whole lines written before it: `readLedger(dir, { cut })` sees
 * exactly the events recorded before the cut — e.g. the appends acknowledged before a backup
 * began (an ack is written after its commit, so each of those commits precedes the backup).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

function reportFiles(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .sort();
}

/** Every report file's size in bytes right now (a file created later is absent: size 0). */
export function reportCut(dir) {
  const cut = {};
  for (const file of reportFiles(dir)) {
    try {
      cut[file] = statSync(join(dir, file)).size;
    } catch {
      // listed, then gone: reports are never removed while roles run, so nothing was in it
    }
  }
  return cut;
}

/**
 * Parse every `*.log` report in `dir` (only the bytes below `cut[file]` when a cut is given). A
 * torn last line (kill -9 mid-write(2)) is impossible for one write of a regular file, but a
 * line without its newline is still skipped, not trusted.
 */
export function readLedger(dir, { cut } = {}) {
  const ledger = {
    intents: new Map(), // token -> { session, role, len, writer, group, at }
    groups: [], // one per append: { tokens, writer, at, session, whole } in each writer's order
    acks: new Map(), // token -> id
    ackAt: new Map(), // token -> when the ack was recorded (ms)
    fails: new Map(), // token -> error
    sessions: new Set(),
    observedCounts: new Map(), // session -> max count any reader saw
    deleting: new Set(), // sessions a pruner set out to delete
    deleted: new Set(), // … and whose deletion it saw committed
  };
  for (const file of reportFiles(dir)) {
    if (cut && !(file in cut)) continue;
    const bytes = readFileSync(join(dir, file));
    const text = (cut ? bytes.subarray(0, cut[file]) : bytes).toString("utf8");
    for (const line of text.split("\n")) {
      if (!line.endsWith("}")) continue;
      const ev = JSON.parse(line);
      if (ev.t === "intent") {
        const group = ledger.groups.length;
        ledger.groups.push({
          tokens: ev.msgs.map((m) => m.token),
          writer: ev.role,
          at: ev.at,
          session: ev.session,
          // An imported session: its record and its messages are stored together or not at all.
          whole: ev.whole === true,
        });
        for (const m of ev.msgs)
          ledger.intents.set(m.token, {
            session: ev.session,
            role: m.role,
            len: m.len,
            writer: ev.role,
            group,
            at: ev.at,
          });
      } else if (ev.t === "ack") {
        for (const [i, token] of ev.tokens.entries()) {
          ledger.acks.set(token, ev.ids[i]);
          ledger.ackAt.set(token, ev.at);
        }
      } else if (ev.t === "fail") {
        for (const token of ev.tokens) ledger.fails.set(token, ev.error);
      } else if (ev.t === "session") {
        ledger.sessions.add(ev.id);
      } else if (ev.t === "delete") {
        for (const id of ev.sessions) ledger.deleting.add(id);
      } else if (ev.t === "deleted") {
        for (const id of ev.sessions) ledger.deleted.add(id);
      } else if (ev.t === "stats" && ev.counts) {
        for (const [id, n] of Object.entries(ev.counts))
          ledger.observedCounts.set(id, Math.max(ledger.observedCounts.get(id) ?? 0, n));
      }
    }
  }
  return ledger;
}
