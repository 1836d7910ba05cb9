/**
 * The JSONL line reader the import uses on files and on stdin's bytes: the same lines, numbers and
 * text however the bytes are cut into chunks — a cut inside a multi-byte character, between `\r`
 * and `\n`, or a line spanning many chunks.
 */
import { describe, expect, it } from "vitest";
import { numberedLines, TooLongLine } from "../src/lines.js";

/** The lines read; none of these inputs has a line too long for a string. */
async function linesOf(chunks: Array<Buffer | Uint8Array>): Promise<Array<[number, string]>> {
  const out: Array<[number, string]> = [];
  for await (const [number, line] of numberedLines(chunks)) {
    if (line instanceof TooLongLine) throw new Error(`line ${number} was too long`);
    out.push([number, line]);
  }
  return out;
}

/** `bytes` cut at every offset in `cuts`. */
function cutAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  for (const cut of cuts) {
    pieces.push(bytes.subarray(start, cut));
    start = cut;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

const TEXT = '\uFEFF{"a":"é"}\r\n\n  \r\n{"b":"日本語 🙂"}\n{"c":1}';
const EXPECTED: Array<[number, string]> = [
  [1, '{"a":"é"}'],
  [4, '{"b":"日本語 🙂"}'],
  [5, '{"c":1}'],
];

describe("numberedLines", () => {
  it("numbers every line, yields the non-blank ones, drops a first-line BOM and CRs before LF", async () => {
    expect(await linesOf([Buffer.from(TEXT)])).toEqual(EXPECTED);
  });

  it("gives the same lines for every cut of the bytes into two and three chunks", async () => {
    const bytes = Buffer.from(TEXT);
    for (let i = 0; i <= bytes.length; i++) {
      expect(await linesOf(cutAt(bytes, [i]))).toEqual(EXPECTED);
      for (let j = i; j <= bytes.length; j += 3)
        expect(await linesOf(cutAt(bytes, [i, j]))).toEqual(EXPECTED);
    }
  });

  it("joins a line that spans many one-byte chunks, and reads plain Uint8Arrays", async () => {
    const bytes = Buffer.from(TEXT);
    const single = Array.from(bytes, (byte) => new Uint8Array([byte]));
    expect(await linesOf(single)).toEqual(EXPECTED);
  });

  it("keeps a lone CR inside a line, a BOM after the first line, and a last line with no newline", async () => {
    expect(await linesOf([Buffer.from('{"a":\r1}\n\uFEFF{"b":2}\r')])).toEqual([
      [1, '{"a":\r1}'],
      [2, '\uFEFF{"b":2}'],
    ]);
  });

  it("yields nothing for empty or blank input", async () => {
    expect(await linesOf([])).toEqual([]);
    expect(await linesOf([Buffer.from("\n \r\n\t\n")])).toEqual([]);
  });
});
