/**
 * The ledger: what every role's report says happened — sessions created, appends intended,
 * acknowledged and refused, counts observed — read back from the report files.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Parse every `*.log` report in `dir`. A torn last line (kill -9 mid-write(2)) is impossible
 * for one write of a regular file, but a line without its newline is still skipped, not trusted. */
export function readLedger(dir) {
  const ledger = {
    intents: new Map(), // token -> { session, role, len, writer, group }
    groups: [], // tokens of one append, in order
    acks: new Map(), // token -> id
    fails: new Map(), // token -> error
    sessions: new Set(),
    observedCounts: new Map(), // session -> max count any reader saw
    events: [],
  };
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .sort()) {
    const text = readFileSync(join(dir, file), "utf8");
    for (const line of text.split("\n")) {
      if (!line.endsWith("}")) continue;
      const ev = JSON.parse(line);
      if (ev.t === "intent") {
        const group = ledger.groups.length;
        ledger.groups.push(ev.msgs.map((m) => m.token));
        for (const m of ev.msgs)
          ledger.intents.set(m.token, {
            session: ev.session,
            role: m.role,
            len: m.len,
            writer: ev.role,
            group,
          });
      } else if (ev.t === "ack") {
        for (const [i, token] of ev.tokens.entries()) ledger.acks.set(token, ev.ids[i]);
      } else if (ev.t === "fail") {
        for (const token of ev.tokens) ledger.fails.set(token, ev.error);
      } else if (ev.t === "session") {
        ledger.sessions.add(ev.id);
      } else if (ev.t === "stats" && ev.counts) {
        for (const [id, n] of Object.entries(ev.counts))
          ledger.observedCounts.set(id, Math.max(ledger.observedCounts.get(id) ?? 0, n));
      }
    }
  }
  return ledger;
}
