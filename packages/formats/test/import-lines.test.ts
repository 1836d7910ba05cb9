/** The importer's line reader on real files: lines across chunk ends, a line too long to keep
 * reported by number and skipped, a last line without its newline left for later. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileLines } from "../src/import/lines.js";

const dir = mkdtempSync(join(tmpdir(), "sessiondb-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function read(text: string, max: number) {
  const file = join(dir, `f${Math.random()}.jsonl`);
  writeFileSync(file, text);
  const end = { complete: 0 };
  const lines = [];
  for await (const l of fileLines(file, max, end)) lines.push(l);
  return { lines, complete: end.complete };
}

describe("fileLines", () => {
  it("reads lines longer than a chunk, non-ASCII split across chunk ends", async () => {
    const long = "ü".repeat(100_000); // 200 000 bytes: the reader's chunks are 64 KiB
    const { lines, complete } = await read(`a\n${long}\nb\n`, 1 << 20);
    expect(lines.map((l) => [l.position, l.text?.length, l.start])).toEqual([
      [1, 1, 0],
      [2, 100_000, 2],
      [3, 1, 200_003],
    ]);
    expect(complete).toBe(200_005);
  });

  it("reports a line past the limit without its text and goes on", async () => {
    const { lines } = await read(`a\n${"x".repeat(300_000)}\nb\n`, 100_000);
    expect(lines.map((l) => [l.position, l.text, l.bytes])).toEqual([
      [1, "a", 1],
      [2, undefined, 300_000],
      [3, "b", 1],
    ]);
  });

  it("leaves a last line without its newline for the next run", async () => {
    const { lines, complete } = await read("one\ntwo\nthr", 100);
    expect(lines.map((l) => l.text)).toEqual(["one", "two"]);
    expect(complete).toBe(8);
  });
});
