/** Human output helpers: numbers, sizes, times, columns, snippet highlighting, shortening. */
import { writeOut } from "./output.js";
import { visible } from "./visible.js";
import { cutToWidth, displayWidth, padToWidth } from "./width.js";

/** Colour only on a terminal, and never when NO_COLOR is set (no-color.org). */
export function useColor(stream: { isTTY?: boolean } = process.stdout): boolean {
  return stream.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== "dumb";
}

const paint =
  (code: string) =>
  (text: string, color = useColor()) =>
    color ? `\x1b[${code}m${text}\x1b[0m` : text;
export const bold = paint("1");
export const dim = paint("2");
export const red = paint("31");
export const green = paint("32");
export const yellow = paint("33");

/** "1234567" → "1,234,567": digits grouped by thousands. */
function grouped(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+$)/g, ",");
}

/*
 * Numbers are written out by hand rather than with `toLocaleString`: the first call of that in a
 * process loads ICU's number formats (20–40 ms on Node and Deno), more than a short command's own
 * work. Where the hand-written form does not apply, `toLocaleString` gives the same text.
 */

/** 12345 → "12,345". */
export function count(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  return (n < 0 ? "-" : "") + grouped(String(Math.abs(n)));
}

/** 1 → "1 session", 2 → "2 sessions". */
export function plural(n: number, noun: string): string {
  return `${count(n)} ${noun}${n === 1 ? "" : "s"}`;
}

/** Bytes → "1.2 MiB" (powers of 1024, labelled as such). */
export function bytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = n;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${count(n)} B` : `${value.toFixed(Math.abs(value) < 10 ? 1 : 0)} ${units[unit]}`;
}

/** US dollars: "$0.0123" under a cent, "$1,234.56" above; "-" for nothing spent. */
export function usd(n: number): string {
  if (n === 0) return "-";
  const digits = Math.abs(n) < 0.01 ? 4 : 2;
  if (!Number.isFinite(n) || Math.abs(n) >= 1e21) {
    return `$${n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
  }
  const [whole, fraction] = roundedDecimal(Math.abs(n), digits);
  return `$${n < 0 ? "-" : ""}${grouped(whole)}.${fraction}`;
}

/** `value` (≥ 0, < 1e21) with `digits` decimals, rounded half up from its shortest decimal
 * spelling — as `toLocaleString` rounds, so 1.005 gives "1.01" where `toFixed` gives "1.00". */
function roundedDecimal(value: number, digits: number): [string, string] {
  const spelled = String(value);
  // Only values under 1e-6 are spelled with an exponent here: they round to zero.
  if (spelled.includes("e")) return ["0", "0".repeat(digits)];
  const [whole = "0", fraction = ""] = spelled.split(".");
  if (fraction.length <= digits) return [whole, fraction.padEnd(digits, "0")];
  let kept = BigInt(whole + fraction.slice(0, digits));
  if ((fraction[digits] as string) >= "5") kept += 1n;
  const all = kept.toString().padStart(digits + 1, "0");
  return [all.slice(0, all.length - digits), all.slice(all.length - digits)];
}

/** Epoch seconds → "2025-01-31 12:00:00Z" (UTC: the same on every machine). */
export function time(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "-";
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;
}

/** Aligned two-column "label  value" lines; control characters in them shown visibly. */
export function pairs(rows: ReadonlyArray<readonly [string, string]>, indent = ""): string {
  const shown = rows.map(([label, value]) => [visible(label), visible(value)] as const);
  const width = Math.max(0, ...shown.map(([label]) => displayWidth(label)));
  return shown.map(([label, value]) => `${indent}${padToWidth(label, width)}  ${value}`).join("\n");
}

export interface TableLayout {
  /** Columns aligned right (numbers). */
  right?: readonly number[];
  /** The column that gives way: its cells are cut (by display width) so each line fits `width`. */
  flex?: number;
  /** Line width to fit; without one (a pipe) the flex column is cut at `flexMax`. */
  width?: number | undefined;
  /** Widest the flex column gets without a width to fit (default 60). */
  flexMax?: number;
}

/** Narrowest the flex column is cut to, even on a terminal too narrow for the table. */
const FLEX_MIN = 12;

/** A table with a header row; columns padded to their widest cell by display width (CJK and
 * emoji count two columns), the flex column cut to what the line width leaves. Cells hold stored
 * values: their control characters are shown visibly (and measured as shown). */
export function table(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  layout: TableLayout = {},
): string {
  const { flex, width, right = [] } = layout;
  const widthOf = (i: number, cells: ReadonlyArray<readonly string[]>) =>
    Math.max(displayWidth(header[i] ?? ""), ...cells.map((row) => displayWidth(row[i] ?? "")));
  let cells = rows.map((row) => row.map(visible));
  let head = header;
  if (flex !== undefined) {
    const fixed = header.reduce((sum, _, i) => (i === flex ? sum : sum + widthOf(i, cells) + 2), 0);
    const room = width === undefined ? (layout.flexMax ?? 60) : Math.max(FLEX_MIN, width - fixed);
    const cut = (row: readonly string[]) =>
      row.map((cell, i) => (i === flex ? cutToWidth(cell, room) : cell));
    cells = cells.map(cut);
    head = cut(header);
  }
  const widths = head.map((_, i) =>
    Math.max(displayWidth(head[i] ?? ""), ...cells.map((row) => displayWidth(row[i] ?? ""))),
  );
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => {
        if (right.includes(i)) return " ".repeat(Math.max(0, (widths[i] ?? 0) - displayWidth(cell))) + cell;
        return i === row.length - 1 ? cell : padToWidth(cell, widths[i] ?? 0);
      })
      .join("  ")
      .trimEnd();
  return [bold(line(head)), ...cells.map(line)].join("\n");
}

/** Collapse whitespace, show control characters visibly, cut to `max` columns with an ellipsis. */
export function oneLineCut(text: string, max: number): string {
  return cutToWidth(visible(text.replace(/\s+/g, " ").trim()), max);
}

/** A search snippet on one line, control characters shown visibly; matches are marked « »:
 * bold-yellow on a terminal, kept as is otherwise. */
export function highlight(snippet: string, color = useColor()): string {
  const line = visible(snippet.replace(/\s*\n\s*/g, " "));
  if (!color) return line;
  return line.replace(/«([^»]*)»/g, (_, match: string) => `\x1b[1;33m${match}\x1b[0m`);
}

/** Text of message content: strings as is, content parts by their text, anything else as JSON. */
export function contentText(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string") {
          return (part as { text: string }).text;
        }
        return JSON.stringify(part);
      })
      .join("\n");
  }
  return JSON.stringify(content);
}

/** Keep the first `maxLines` lines / `maxChars` characters, saying how much was left out. */
export function shorten(text: string, maxLines: number, maxChars: number): { text: string; omitted: number } {
  let cut = text.length;
  let lines = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\n" && ++lines >= maxLines) {
      cut = i;
      break;
    }
  }
  cut = Math.min(cut, maxChars);
  return { text: text.slice(0, cut), omitted: text.length - cut };
}

/** Print JSON on stdout: one document, two-space indent, trailing newline. */
export function printJson(value: unknown): void {
  writeOut(`${JSON.stringify(value, null, 2)}\n`);
}

/** Print human text on stdout with a trailing newline. */
export function print(text: string): void {
  writeOut(`${text}\n`);
}
