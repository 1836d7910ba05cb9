/**
 * Text measured the way a terminal draws it: CJK and emoji take two columns, combining marks and
 * zero-width characters none; this module cuts, pads and wraps by that measure.
 *
 * Printable ASCII needs none of the Unicode machinery, and most output is ASCII. The rest is made
 * on the first text that needs it: an `Intl.Segmenter` loads ICU's break rules when it is created
 * (15–30 ms on Node), and `get-east-asian-width` is loaded then too (a package of four modules
 * that cost a command's start 10–16 ms of CPU on Node 20, more than its bytes: resolving a
 * package of its own), both of which a command that prints only ASCII should not pay.
 */

import { createRequire } from "node:module";
import type * as EastAsianWidth from "get-east-asian-width";
import { envIfAllowed } from "./permissions.js";

type WidthOf = (codePoint: number) => number;
let eastAsianWidth: WidthOf | undefined;

/** `get-east-asian-width`'s measure, loaded on first use. It is an ES module, which a runtime
 * can load synchronously where `require` takes ES modules (Node ≥ 20.19, Bun, Deno); on an older
 * Node, `preloadWidths` has loaded it before the command ran. */
function widthOf(codePoint: number): number {
  eastAsianWidth ??= (createRequire(import.meta.url)("get-east-asian-width") as typeof EastAsianWidth)
    .eastAsianWidth;
  return eastAsianWidth(codePoint);
}

/** Load the East Asian Width table now where `widthOf` could not load it later: a Node whose
 * `require` does not take ES modules (20.16–20.18). Elsewhere it loads nothing. */
export async function preloadWidths(): Promise<void> {
  if (process.features.require_module === true) return;
  eastAsianWidth ??= (await import("get-east-asian-width")).eastAsianWidth;
}

/** Printable ASCII is one column a character: the common case skips everything below. */
const PLAIN = /^[\x20-\x7e]*$/;
const TAB_STOP = 8;

/** The Unicode facts a grapheme's width depends on, made once, on first use. */
interface Unicode {
  graphemes: Intl.Segmenter;
  /** A code point drawn as nothing: ignorable, control, format, non-spacing or enclosing mark. */
  invisible: RegExp;
  /** A code point after a grapheme's first that still takes a column of its own: a spacing mark,
   * or a halfwidth form (a voiced-sound mark after halfwidth katakana). */
  spacing: RegExp;
  /** Emoji drawn as such by default (🚀), or text pictographs turned into emoji by U+FE0F (❤️)
   * or joined into one by U+200D (👩‍💻). */
  emojiByDefault: RegExp;
  pictographic: RegExp;
  /** Two regional indicators: a flag. */
  flag: RegExp;
  /** ANSI escape sequences (CSI: colours, cursor moves): drawn as nothing. */
  ansi: RegExp;
}

let unicode: Unicode | undefined;

function unicodeFacts(): Unicode {
  unicode ??= {
    graphemes: new Intl.Segmenter(),
    invisible: /^[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Mn}\p{Me}\p{Cs}]$/u,
    spacing: /^[\p{Mc}\uff00-\uffef]$/u,
    emojiByDefault: /\p{Emoji_Presentation}/u,
    pictographic: /\p{Extended_Pictographic}/u,
    flag: /\p{Regional_Indicator}{2}/u,
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding ESC is the point
    ansi: /\x1b\[[0-?]*[ -/]*[@-~]/g,
  };
  return unicode;
}

/** The grapheme clusters of `text`, as a terminal draws them, each with the columns it takes:
 * segmented once (measuring each cluster with `displayWidth` would segment it again). */
function* measuredGraphemes(text: string): Generator<[string, number]> {
  const u = unicodeFacts();
  for (const { segment } of u.graphemes.segment(text)) {
    yield [segment, PLAIN.test(segment) ? segment.length : clusterWidth(segment, u)];
  }
}

/** Columns one grapheme cluster takes: 0 when nothing in it is visible; 2 for an emoji; else the
 * East Asian Width of its first visible code point (ambiguous ones narrow, as most terminals
 * draw them), plus a column for each spacing mark after it. */
function clusterWidth(cluster: string, u: Unicode): number {
  let width = 0;
  for (const char of cluster) {
    if (width === 0) {
      if (!u.invisible.test(char)) width = widthOf(char.codePointAt(0) as number);
    } else if (u.spacing.test(char)) {
      width += widthOf(char.codePointAt(0) as number);
    }
  }
  if (width === 0) return 0;
  const emoji =
    u.emojiByDefault.test(cluster) ||
    ((cluster.includes("\ufe0f") || cluster.includes("\u200d")) && u.pictographic.test(cluster)) ||
    cluster.includes("\u20e3") ||
    u.flag.test(cluster);
  return emoji ? 2 : width;
}

/** Columns `text` takes on a terminal (no newlines expected; a tab counts 0: expandTabs places them). */
export function displayWidth(text: string): number {
  if (PLAIN.test(text)) return text.length;
  let width = 0;
  for (const [, w] of measuredGraphemes(text.replace(unicodeFacts().ansi, ""))) width += w;
  return width;
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
  for (const [segment, w] of measuredGraphemes(text)) {
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
  for (const [segment, w] of measuredGraphemes(text)) {
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
