/**
 * Snippets for LIKE hits (pure), shaped like FTS5's `snippet()`: a window of text around the
 * first match, every match wrapped in the same « » markers, and … where the window cuts the text.
 */
import { utf8Text } from "../model/rows.js";
import {
  LIKE_SNIPPET_BEFORE_CHARS,
  LIKE_SNIPPET_CHARS,
  SNIPPET_CLOSE,
  SNIPPET_ELLIPSIS,
  SNIPPET_OPEN,
} from "./constants.js";

/** SQLite's built-in lower() and LIKE fold ASCII only; JavaScript must fold exactly the same. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Wrap every occurrence of any of `terms` in `text` with the snippet markers. */
export function markMatches(text: string, terms: readonly string[]): string {
  const folded = asciiLower(text);
  const ranges: Array<[number, number]> = [];
  for (const term of terms) {
    const needle = asciiLower(term);
    if (!needle) continue;
    for (let at = folded.indexOf(needle); at >= 0; at = folded.indexOf(needle, at + needle.length)) {
      ranges.push([at, at + needle.length]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = "";
  let cursor = 0;
  for (const [start, end] of ranges) {
    if (start < cursor) {
      // Overlapping matches ("ab" and "bc" in "abc") extend the open mark instead of nesting.
      if (end > cursor) {
        out = out.slice(0, -SNIPPET_CLOSE.length) + text.slice(cursor, end) + SNIPPET_CLOSE;
        cursor = end;
      }
      continue;
    }
    out += text.slice(cursor, start) + SNIPPET_OPEN + text.slice(start, end) + SNIPPET_CLOSE;
    cursor = end;
  }
  return out + text.slice(cursor);
}

/** A window of a value's UTF-8 bytes around a match, as likeWindowsSql cuts it. */
export interface ByteWindow {
  /** The window (it may cut a character at either edge). */
  bytes: Uint8Array;
  /** 1-based byte positions, in the whole value, of the window and of the match. */
  start: number;
  match: number;
  /** Bytes in the whole value. */
  total: number;
}

/** Bytes of the UTF-8 sequence a lead byte starts (1 for a stray byte). */
function sequenceLength(lead: number): number {
  if ((lead & 0xe0) === 0xc0) return 2;
  if ((lead & 0xf0) === 0xe0) return 3;
  if ((lead & 0xf8) === 0xf0) return 4;
  return 1;
}

/** The byte range of `bytes` without the characters its edges cut. */
function wholeCharacters(bytes: Uint8Array): [number, number] {
  let from = 0;
  while (from < bytes.length && ((bytes[from] as number) & 0xc0) === 0x80) from++;
  let lead = bytes.length - 1;
  while (lead > from && ((bytes[lead] as number) & 0xc0) === 0x80) lead--;
  const to =
    lead >= from && lead + sequenceLength(bytes[lead] as number) > bytes.length ? lead : bytes.length;
  return [from, to];
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** Where the last `max` characters (code points) of `text` start, and how many there are. */
function lastCharacters(text: string, max: number): [start: number, count: number] {
  let at = text.length;
  let count = 0;
  for (; at > 0 && count < max; count++) {
    at -= at >= 2 && isLow(text.charCodeAt(at - 1)) && isHigh(text.charCodeAt(at - 2)) ? 2 : 1;
  }
  return [at, count];
}

/** Where the first `max` characters (code points) of `text` end. */
function firstCharacters(text: string, max: number): number {
  let at = 0;
  for (let count = 0; at < text.length && count < max; count++) {
    at += at + 1 < text.length && isHigh(text.charCodeAt(at)) && isLow(text.charCodeAt(at + 1)) ? 2 : 1;
  }
  return at;
}

/**
 * The snippet of a byte window: LIKE_SNIPPET_BEFORE_CHARS characters before the match and
 * LIKE_SNIPPET_CHARS in all, matches marked. The window is cut in bytes (SQLite's substr() and
 * length() stop at a NUL character; bytes do not) and turned into characters here, counted
 * without splitting the text into an array (a page of long hits makes hundreds of these).
 */
export function windowSnippet(window: ByteWindow, terms: readonly string[]): string {
  const { bytes } = window;
  const [from, to] = wholeCharacters(bytes);
  const at = Math.min(Math.max(from, window.match - window.start), to);
  const before = utf8Text(bytes.subarray(from, at));
  const after = utf8Text(bytes.subarray(at, to));
  const [start, shown] = lastCharacters(before, LIKE_SNIPPET_BEFORE_CHARS);
  const end = firstCharacters(after, LIKE_SNIPPET_CHARS - shown);
  const head = window.start + from > 1 || start > 0 ? SNIPPET_ELLIPSIS : "";
  const tail = window.start - 1 + to < window.total || end < after.length ? SNIPPET_ELLIPSIS : "";
  return head + markMatches(before.slice(start) + after.slice(0, end), terms) + tail;
}
