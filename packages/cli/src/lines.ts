/**
 * The lines of a byte stream, numbered, for reading JSONL without holding it as text: a file read
 * in chunks, or stdin's chunks kept as bytes for a second pass (about the input's size in memory,
 * where the text and its lines as strings took several times that, and a string over V8's limit
 * of ~512 Mi characters could not be made at all).
 *
 * Lines end at `\n`, and a `\r` that ends a line is dropped (CRLF files). Each line is decoded from
 * UTF-8 on its own: the byte 0x0A never occurs inside a multi-byte character, so a cut there
 * never splits one. Blank lines count for the numbering (so line numbers match an editor's) but
 * are not yielded; a byte-order mark at the start of the first line is dropped. A line longer
 * than the runtime's longest string (~512 Mi characters on V8) cannot be decoded at all: it is
 * yielded as a `TooLongLine`, for the caller to report like any other bad line and go on.
 */

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** A line whose text is longer than this runtime can hold as one string. */
export class TooLongLine {
  constructor(readonly bytes: number) {}

  get message(): string {
    return `the line is ${this.bytes} bytes long, more than this runtime can hold as one string`;
  }
}

/** The non-blank lines of `chunks`, each with its line number (from 1). */
export async function* numberedLines(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<[number, string | TooLongLine]> {
  /** The start of a line that goes on in a later chunk (a line longer than a chunk spans many). */
  let pending: Buffer[] = [];
  let line = 0;
  const text = (bytes: Buffer): string | TooLongLine => {
    line++;
    const end =
      bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN ? bytes.length - 1 : bytes.length;
    let decoded: string;
    try {
      decoded = bytes.toString("utf8", 0, end);
    } catch (error) {
      // Node says ERR_STRING_TOO_LONG, Deno a RangeError: the only way a decode of bytes fails.
      if (error instanceof RangeError || (error as { code?: unknown }).code === "ERR_STRING_TOO_LONG")
        return new TooLongLine(end);
      throw error;
    }
    return line === 1 ? decoded.replace(/^\uFEFF/, "") : decoded;
  };
  for await (const chunk of chunks) {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      const piece = bytes.subarray(start, end);
      const whole = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      start = end + 1;
      const value = text(whole);
      if (typeof value !== "string" || value.trim()) yield [line, value];
    }
    if (start < bytes.length) pending.push(bytes.subarray(start));
  }
  if (pending.length > 0) {
    const value = text(Buffer.concat(pending));
    if (typeof value !== "string" || value.trim()) yield [line, value];
  }
}

/** Every chunk of a stream that can be read only once (stdin, a FIFO), kept as it came.
 * `checkHead` sees the first `headBytes` bytes (all of them, if fewer) as soon as they are in:
 * what it throws ends the read there, before the rest is held in memory. */
export async function readChunks(
  input: AsyncIterable<unknown>,
  checkHead?: { headBytes: number; check: (head: Buffer) => void },
): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  let size = 0;
  let checked = checkHead === undefined;
  for await (const chunk of input) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(bytes);
    size += bytes.length;
    if (!checked && size >= (checkHead?.headBytes ?? 0)) {
      checked = true;
      checkHead?.check(Buffer.concat(chunks).subarray(0, checkHead.headBytes));
    }
  }
  if (!checked) checkHead?.check(Buffer.concat(chunks));
  return chunks;
}
