/**
 * Snippets for LIKE hits (pure), shaped like FTS5's `snippet()`: a window of text around the
 * first match, every match wrapped in the same « » markers, and … where the window cuts the text.
 */
import { SNIPPET_CLOSE, SNIPPET_ELLIPSIS, SNIPPET_OPEN } from "./constants.js";

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

/** A window `text` that starts at character `start` (1-based) of a `length`-character value. */
export function likeSnippet(text: string, start: number, length: number, terms: readonly string[]): string {
  const head = start > 1 ? SNIPPET_ELLIPSIS : "";
  const tail = start - 1 + Array.from(text).length < length ? SNIPPET_ELLIPSIS : "";
  return head + markMatches(text, terms) + tail;
}
