/**
 * `import` at its limits, on every runtime: a line longer than the runtime's longest string
 * (~512 Mi characters on V8: Node, Deno) is reported by its number like any bad line and the
 * import goes on with the next session (exit 8); a file none of whose sessions the store takes
 * leaves no store behind (exit 8, the folder as it was).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runOn, TARGETS, tempDir, withStore } from "./helpers.js";

const session = (id: string, startedAt: number) =>
  JSON.stringify({ type: "session", id, source: "cli", started_at: startedAt });
const message = (content: string) => JSON.stringify({ role: "user", content, timestamp: 1 });

/** Past V8's 2^29 - 24 characters, the longest string Node and Deno can make. */
const HUGE_LINE_CHARS = 2 ** 29 + 8 * 1024 * 1024;

let dir: string;
let huge: string;
let refused: string;

beforeAll(() => {
  dir = tempDir();
  huge = path.join(dir, "huge-line.jsonl");
  const fd = fs.openSync(huge, "w");
  try {
    fs.writeSync(fd, `${session("before", 1)}\n${message("first")}\n${session("huge", 2)}\n`);
    fs.writeSync(fd, '{"role":"user","timestamp":1,"content":"');
    const chunk = Buffer.alloc(16 * 1024 * 1024, "x");
    for (let written = 0; written < HUGE_LINE_CHARS; written += chunk.length) fs.writeSync(fd, chunk);
    fs.writeSync(fd, `"}\n${session("after", 3)}\n${message("last")}\n`);
  } finally {
    fs.closeSync(fd);
  }
  refused = path.join(dir, "refused.jsonl");
  // Well-formed lines whose session ids the store refuses (control characters): only the store
  // can tell, so a store is opened for them.
  fs.writeFileSync(
    refused,
    `${[session("ctl\u0001a", 1), message("x"), session("ctl\u0002b", 2), message("y")].join("\n")}\n`,
  );
}, 120_000);

describe.each(TARGETS)("$name", (target) => {
  const run = runOn(target);
  const name = target.name.replace(/\W+/g, "-");

  it("a line longer than the runtime's longest string is reported by number; the next session is imported", () => {
    const db = path.join(dir, `${name}-huge.db`);
    const r = run(["--db", db, "import", huge]);
    expect(r.code, r.stderr.slice(0, 2000)).toBe(8);
    expect(r.stderr).toMatch(/^line 4: /m);
    expect(r.stderr).not.toMatch(/ERR_STRING_TOO_LONG|^\s+at /m);
    const ids = withStore(db, (s) => s.listSessions().map((x) => x.id), { readOnly: true }).sort();
    expect(ids).toEqual(["after", "before"]);
  }, 240_000);

  it("a file with no session the store takes creates no store", () => {
    const sub = path.join(dir, `${name}-refused`);
    fs.mkdirSync(sub);
    const db = path.join(sub, "state.db");
    const r = run(["--db", db, "import", refused]);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toMatch(/^line 1: .*Invalid id: must not contain control characters/m);
    expect(r.stderr).toMatch(/^line 3: .*Invalid id: must not contain control characters/m);
    expect(fs.readdirSync(sub)).toEqual([]);
  });
});
