/**
 * Text measured the way a terminal draws it: CJK and most emoji take two columns, combining marks
 * and zero-width characters none. The width of a grapheme comes from `string-width` (Unicode's
 * East Asian Width and emoji data, kept current upstream); this module cuts, pads and wraps by it.
 */
import process from "node:process";
import stringWidth from "string-width";
import { envIfAllowed } from "./permissions.js";

/** Printable ASCII is one column a character: the common case skips grapheme segmentation. */
const PLAIN = /^[\x20-\x7e]*$/;
const graphemes = new Intl.Segmenter();
const TAB_STOP = 8;

/** Columns `text` takes on a terminal (no newlines expected; tabs count 0, as string-width does). */
export function displayWidth(text: string): number {
  return PLAIN.test(text) ? text.length : stringWidth(text);
}

/** The terminal's width for output on `stream`, from the terminal or $COLUMNS; undefined when
 * neither says (a pipe): output meant for a file or another program is not cut to a guess. */
export function terminalWidth(
  stream: { isTTY?: boolean; columns?: number } = process.stdout,
): number | undefined {
  if (stream.isTTY && stream.columns && stream.columns > 0) return stream.columns;
  const fromEnv = Number(envIfAllowed("COLUMNS"));
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined;
}

/** `text` cut to at most `max` columns, ending in "…" when something was cut. */
export function cutToWidth(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  if (max <= 0) return "";
  let out = "";
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = displayWidth(segment);
    if (used + w > max - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** `text` padded with spaces to `width` columns. */
export function padToWidth(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - displayWidth(text)));
}

/** Tabs become spaces up to the next stop, so widths add up the way the terminal will draw them. */
function expandTabs(line: string): string {
  if (!line.includes("\t")) return line;
  let out = "";
  for (const part of line.split("\t").entries()) {
    if (part[0] > 0) out += " ".repeat(TAB_STOP - (displayWidth(out) % TAB_STOP));
    out += part[1];
  }
  return out;
}

/**
 * One line broken into lines of at most `width` columns: at the last space that fits, or inside
 * a word longer than the line (a URL, a hash, CJK text without spaces).
 */
export function wrapLine(line: string, width: number): string[] {
  const text = expandTabs(line);
  if (width < 1 || displayWidth(text) <= width) return [text];
  const out: string[] = [];
  let current = "";
  let used = 0;
  /** Where in `current` the last space ends, and the columns up to there. */
  let breakAt = -1;
  let usedAtBreak = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = displayWidth(segment);
    if (used + w > width && current !== "") {
      if (breakAt > 0 && segment !== " ") {
        out.push(current.slice(0, breakAt).trimEnd());
        current = current.slice(breakAt);
        used -= usedAtBreak;
      } else {
        out.push(current.trimEnd());
        current = "";
        used = 0;
      }
      breakAt = -1;
      if (segment === " " && current === "") continue;
    }
    current += segment;
    used += w;
    if (segment === " ") {
      breakAt = current.length;
      usedAtBreak = used;
    }
  }
  if (current !== "" || out.length === 0) out.push(current);
  return out;
}
