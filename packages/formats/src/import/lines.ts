/**
 * A session file read line by line with flat memory: the bytes of one line at a time are held,
 * never the file. A last line without its newline is still being written by its producer and is
 * left for the next run (`complete` stops before it); a line longer than `maxLineBytes` is
 * reported by number and skipped, since no runtime could hold it as one string.
 */
import { createReadStream } from "node:fs";

export interface FileLine {
  /** 1-based line number. */
  position: number;
  /** The line's text (without its newline), or undefined when it was too long to keep. */
  text: string | undefined;
  /** Its length in bytes. */
  bytes: number;
  /** Byte offset of its first byte. */
  start: number;
}

/** Where to start: a byte offset just past a newline, and the lines before it. */
export interface LinesFrom {
  offset: number;
  lines: number;
}

/** The complete lines of `path` (from `from`, default its start); `end.complete` is the byte
 * offset after the last newline. */
export async function* fileLines(
  path: string,
  maxLineBytes: number,
  end: { complete: number },
  from: LinesFrom = { offset: 0, lines: 0 },
): AsyncGenerator<FileLine> {
  let parts: Buffer[] = [];
  let held = 0;
  let lineBytes = 0;
  let start = from.offset;
  let offset = from.offset;
  let position = from.lines;
  end.complete = from.offset;
  // The file is only opened for reading ("r"): an importer never writes an agent's files.
  for await (const chunk of createReadStream(path, {
    flags: "r",
    start: from.offset,
    highWaterMark: 1 << 16,
  }) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, nl);
      lineBytes += piece.length;
      if (lineBytes <= maxLineBytes) parts.push(piece);
      position++;
      const text = lineBytes <= maxLineBytes ? Buffer.concat(parts).toString("utf8") : undefined;
      yield { position, text, bytes: lineBytes, start };
      offset += nl - from + 1;
      start = offset;
      end.complete = offset;
      parts = [];
      held = 0;
      lineBytes = 0;
      from = nl + 1;
    }
    const rest = chunk.subarray(from);
    lineBytes += rest.length;
    offset += rest.length;
    // Copied: the stream may reuse its chunk's memory; dropped once the line is too long to keep.
    if (lineBytes <= maxLineBytes) {
      parts.push(Buffer.from(rest));
      held += rest.length;
    } else if (held > 0) {
      parts = [];
      held = 0;
    }
  }
}
