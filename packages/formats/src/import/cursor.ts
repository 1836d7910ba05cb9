/**
 * Where an import got to in one session file, kept in the session's own metadata under
 * `sessiondbImport` (no table of its own: the session is what the file became). A file whose
 * size and modification time are still the cursor's is skipped on a stat alone. One that grew
 * and still holds, where the cursor's last complete line was, that same line (its sha256) was
 * only appended to: it is read from the end of that line, by a mapper given the state the last
 * run's mapper saved (a format's mapper keeps state across a file's lines: cumulative token
 * totals, tool calls paired later). Any other change (a smaller file, another line there, no
 * saved state) reads the file again from its first line, and the rows the store holds already
 * are skipped through their externalId, so nothing is stored twice.
 */
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import type { Json } from "@sessiondb/core";

/** The metadata key of the cursor. */
export const CURSOR_KEY = "sessiondbImport";

export interface FileCursor {
  /** The file's absolute path when it was read. */
  file: string;
  /** Its size then, including a half-written last line. */
  size: number;
  mtimeMs: number;
  /** Bytes up to the end of its last complete line: what was imported. */
  complete: number;
  /** sha256 of the last complete line (hex): tells a file appended to from one rewritten. */
  lastLineHash: string | null;
  /** Byte offset of that line's first byte. */
  lastLineStart: number | null;
  /** Complete lines up to `complete`: the number the next line gets. */
  lines: number | null;
  /** The mapper's state after those lines (ItemMapper.save); null when it has none to give. */
  state: Json;
  /** The parent session the file's lines name (its session may not have it yet: parents.ts). */
  parent: string | null;
}

/** Where a file that was only appended to is read from. */
export interface ResumePoint {
  offset: number;
  lines: number;
  lastLineStart: number;
  lastLineHash: string;
  state: Json;
}

export function hashLine(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

const count = (v: Json | undefined) =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : null;

/** The cursor a session's metadata holds, if any. */
export function cursorOf(metadata: { [key: string]: Json } | null): FileCursor | undefined {
  const c = metadata?.[CURSOR_KEY];
  if (c === null || typeof c !== "object" || Array.isArray(c)) return undefined;
  const { file, size, mtimeMs, complete, lastLineHash, lastLineStart, lines, state, parent } = c as {
    [key: string]: Json;
  };
  if (typeof file !== "string" || typeof size !== "number" || typeof mtimeMs !== "number") return undefined;
  return {
    file,
    size,
    mtimeMs,
    complete: count(complete) ?? 0,
    lastLineHash: typeof lastLineHash === "string" ? lastLineHash : null,
    lastLineStart: count(lastLineStart),
    lines: count(lines),
    state: state ?? null,
    parent: typeof parent === "string" && parent !== "" ? parent : null,
  };
}

/** Whether a file stat'ed now is as the cursor left it. */
export function unchanged(cursor: FileCursor | undefined, size: number, mtimeMs: number): boolean {
  return cursor !== undefined && cursor.size === size && cursor.mtimeMs === mtimeMs;
}

/** Where to go on reading a file of `size` bytes now: past the cursor's last complete line when
 * the file still holds that line there; undefined when it must be read from its first line. */
export async function resumePoint(
  cursor: FileCursor | undefined,
  size: number,
): Promise<ResumePoint | undefined> {
  if (cursor === undefined || cursor.state === null || cursor.complete === 0 || size < cursor.complete)
    return undefined;
  const { lastLineHash, lastLineStart, lines } = cursor;
  if (lastLineHash === null || lastLineStart === null || lines === null || lastLineStart >= cursor.complete)
    return undefined;
  // The line as it is now, its newline left out (as the line reader leaves it out).
  const bytes = Buffer.alloc(cursor.complete - 1 - lastLineStart);
  const file = await open(cursor.file, "r");
  try {
    const { bytesRead } = await file.read(bytes, 0, bytes.length, lastLineStart);
    if (bytesRead !== bytes.length) return undefined;
    const newline = Buffer.alloc(1);
    await file.read(newline, 0, 1, cursor.complete - 1);
    if (newline[0] !== 10) return undefined;
  } finally {
    await file.close();
  }
  if (hashLine(bytes.toString("utf8")) !== lastLineHash) return undefined;
  return { offset: cursor.complete, lines, lastLineStart, lastLineHash, state: cursor.state };
}
