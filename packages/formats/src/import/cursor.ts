/**
 * Where an import got to in one session file, kept in the session's own metadata under
 * `sessiondbImport` (no table of its own: the session is what the file became). A file whose
 * size and modification time are still the cursor's is skipped on a stat alone; one that changed
 * is read again from its first line, since a format's mapper keeps state across a file's lines
 * (cumulative token totals, tool calls paired later), and the rows it already holds are skipped
 * by the store through their externalId, so nothing is stored twice.
 */
import { createHash } from "node:crypto";
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
}

export function hashLine(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The cursor a session's metadata holds, if any. */
export function cursorOf(metadata: { [key: string]: Json } | null): FileCursor | undefined {
  const c = metadata?.[CURSOR_KEY];
  if (c === null || typeof c !== "object" || Array.isArray(c)) return undefined;
  const { file, size, mtimeMs, complete, lastLineHash } = c as { [key: string]: Json };
  if (typeof file !== "string" || typeof size !== "number" || typeof mtimeMs !== "number") return undefined;
  return {
    file,
    size,
    mtimeMs,
    complete: typeof complete === "number" ? complete : 0,
    lastLineHash: typeof lastLineHash === "string" ? lastLineHash : null,
  };
}

/** Whether a file stat'ed now is as the cursor left it. */
export function unchanged(cursor: FileCursor | undefined, size: number, mtimeMs: number): boolean {
  return cursor !== undefined && cursor.size === size && cursor.mtimeMs === mtimeMs;
}
