/**
 * `export` while another process deletes sessions: the export finishes (exit 0), leaves out what
 * was deleted with a note on stderr, and never writes a session record without its messages.
 * The export runs as a real subprocess and is held still at a known point (its stdout unread, or
 * SIGSTOP once its temporary file appears) while `sessiondb sessions delete` runs in another.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { stopProcess } from "@sessiondb/test-sqld";
import { beforeEach, describe, expect, it } from "vitest";
import { cli, startCli, tempDir, withStore } from "./helpers.js";

/** Messages in the session deleted mid-way: many pages (the export reads 1,000 at a time). */
const BIG = 20_000;

let dir: string;
let db: string;

beforeEach(() => {
  dir = tempDir();
  db = path.join(dir, "state.db");
  withStore(db, (s) => {
    // "big" is the oldest, so it is exported first; "late" comes last.
    s.createSession({ id: "big", source: "cli", startedAt: 1_700_000_000 });
    for (let i = 0; i < BIG; i += 1000)
      s.appendMessages(
        "big",
        Array.from({ length: 1000 }, (_, j) => ({ role: "user" as const, content: `big message ${i + j}` })),
      );
    for (const [n, id] of ["keep1", "keep2", "late"].entries()) {
      s.createSession({ id, source: "cli", startedAt: 1_700_000_100 + n });
      s.appendMessages(id, [
        { role: "user", content: `${id} question` },
        { role: "assistant", content: `${id} answer` },
      ]);
    }
  });
});

/** Delete sessions from another process, as another user of the store would. */
function deleteElsewhere(...ids: string[]): void {
  for (const id of ids) {
    const r = cli(["--db", db, "sessions", "delete", id, "--yes"]);
    expect(r.code, r.stderr).toBe(0);
  }
}

/** JSONL lines grouped by session: each record with the messages that follow it. */
function sessionsIn(jsonl: string): Map<string, number> {
  const out = new Map<string, number>();
  let current: string | undefined;
  for (const line of jsonl.split("\n").filter(Boolean)) {
    const value = JSON.parse(line) as { type?: string; id?: string; session_id?: string };
    if (value.type === "session") {
      current = value.id as string;
      out.set(current, 0);
    } else {
      expect(value.session_id).toBe(current);
      out.set(current as string, (out.get(current as string) ?? 0) + 1);
    }
  }
  return out;
}

function exportProcess(args: string[]) {
  return startCli(["--db", db, "export", ...args]);
}

describe("export while another process deletes sessions", () => {
  it("to stdout: a session deleted between two pages keeps what was written, one deleted before it is reached is left out; exit 0", async () => {
    const { child, closed } = exportProcess([]);
    const chunks: Buffer[] = [];
    // Take the first chunk, then stop reading: the export waits for the reader inside "big".
    const first = new Promise<void>((resolve) =>
      child.stdout?.once("data", (d: Buffer) => {
        chunks.push(d);
        child.stdout?.pause();
        resolve();
      }),
    );
    await first;
    deleteElsewhere("big", "late");
    child.stdout?.on("data", (d: Buffer) => chunks.push(d));
    child.stdout?.resume();
    const { code, stderr } = await closed;
    expect(code, stderr).toBe(0);
    const got = sessionsIn(Buffer.concat(chunks).toString());
    expect([...got.keys()]).toEqual(["big", "keep1", "keep2"]);
    expect(got.get("keep1")).toBe(2);
    expect(got.get("keep2")).toBe(2);
    const written = got.get("big") as number;
    expect(written).toBeGreaterThan(0);
    expect(written, "the reader held the export inside big").toBeLessThan(BIG);
    expect(written % 1000, "whole pages only").toBe(0);
    expect(stderr).toContain(
      `note: session "big" was deleted by another process while it was exported: its record and first ${written.toLocaleString("en-US")} messages were written, the rest was not`,
    );
    expect(stderr).toContain(
      'note: session "late" was deleted by another process during the export and is left out',
    );
    expect(stderr).not.toMatch(/SESSION_NOT_FOUND/);
  });

  it("to --output FILE: a session deleted between two pages is cut out of the file whole; exit 0", async () => {
    const out = path.join(dir, "out", "backup.jsonl");
    fs.mkdirSync(path.dirname(out));
    const { child, closed } = exportProcess(["--output", out]);
    const folder = path.dirname(out);
    const deadline = Date.now() + 30_000;
    // Busy wait on purpose: hold the export still the moment its temporary file has bytes.
    let temporary: string | undefined;
    while (Date.now() < deadline) {
      temporary = fs.readdirSync(folder)[0];
      if (temporary && fs.statSync(path.join(folder, temporary)).size > 0) break;
    }
    stopProcess(child.pid as number);
    expect(temporary, "the export wrote nothing in 30 s").toBeDefined();
    const sofar = fs.readFileSync(path.join(folder, temporary as string), "utf8");
    const lines = sofar.split("\n").length - 1;
    expect(lines, "held too late: big was already complete").toBeLessThan(BIG);
    deleteElsewhere("big", "late");
    child.kill("SIGCONT");
    const { code, stderr } = await closed;
    expect(code, stderr).toBe(0);
    const got = sessionsIn(fs.readFileSync(out, "utf8"));
    expect(Object.fromEntries(got)).toEqual({ keep1: 2, keep2: 2 });
    expect(stderr).toContain(
      'note: session "big" was deleted by another process during the export and is left out',
    );
    expect(stderr).toContain('note: session "late" was deleted');
    expect(stderr).toContain(
      `exported 2 sessions (4 messages) to ${out}; left out 2 sessions deleted during the export\n`,
    );
    expect(fs.readdirSync(folder)).toEqual(["backup.jsonl"]);
    // What was written imports cleanly.
    const again = cli(["--db", path.join(dir, "again.db"), "import", out]);
    expect(again.code, again.stderr).toBe(0);
  });
});
