/**
 * `import` of a large file holds neither the file nor many sessions as JavaScript text: a 150 MB
 * JSONL of tool outputs (150 sessions of ten 100 KB messages) imports whole, from a path and from
 * stdin, in a Node process whose JavaScript heap is capped at 64 MB. Before, stdin was held as one
 * string and then as its lines (over 128 MB of heap for this file), and the library's steps, sized
 * by their count of messages alone, read ahead as much of a fast input as thousands of messages
 * hold (all of this one). A path is read as a stream in both passes, never held.
 *
 * Node only: the heap cap is a V8 flag each runtime spells its own way, and the code that reads
 * the input and sizes the steps is the same on every runtime.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, json, tempDir, withStore } from "./helpers.js";

const SESSIONS = 150;
const MESSAGES = 10;
const OUTPUT_CHARS = 100 * 1024;
const HEAP = ["--max-old-space-size=64"];

const output = (session: number, message: number) => `${session}-${message} `.padEnd(OUTPUT_CHARS, "x");

let dir: string;
let file: string;

beforeAll(() => {
  dir = tempDir();
  file = path.join(dir, "outputs.jsonl");
  const fd = fs.openSync(file, "w");
  try {
    for (let s = 0; s < SESSIONS; s++) {
      const lines = [JSON.stringify({ type: "session", id: `s${s}`, source: "cli", started_at: 1 })];
      for (let m = 0; m < MESSAGES; m++) {
        lines.push(
          JSON.stringify({ role: "tool", name: "shell", tool_call_id: `c${m}`, content: output(s, m) }),
        );
      }
      fs.writeSync(fd, `${lines.join("\n")}\n`);
    }
  } finally {
    fs.closeSync(fd);
  }
});

describe("import of a 150 MB file with a 64 MB heap", () => {
  for (const from of ["a path", "stdin"] as const) {
    it(`imports every session from ${from}`, () => {
      const db = path.join(dir, `${from === "stdin" ? "stdin" : "path"}.db`);
      const r = cli(["--db", db, "import", from === "stdin" ? "-" : file, "--json"], {
        runtime: [process.execPath, ...HEAP],
        ...(from === "stdin" ? { stdinFile: file } : {}),
      });
      expect(r.stderr).not.toMatch(/heap/i);
      expect(r.code).toBe(0);
      expect(json(r)).toMatchObject({
        sessions: { imported: SESSIONS, failed: 0 },
        messages: SESSIONS * MESSAGES,
      });
      const last = withStore(db, (store) => store.getMessages(`s${SESSIONS - 1}`, { last: 1 }), {
        readOnly: true,
      });
      expect(last[0]?.content).toBe(output(SESSIONS - 1, MESSAGES - 1));
    });
  }
});
