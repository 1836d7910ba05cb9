/** Human output helpers: numbers, sizes, times, columns, snippet highlighting, shortening. */
import process from "node:process";
import { writeOut } from "./output.js";

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

/** 12345 → "12,345". */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** 1 → "1 session", 2 → "2 sessions". */
export function plural(n: number, noun: string): string {
  return `${count(n)} ${noun}${n === 1 ? "" : "s"}`;
}

/** Bytes → "1.2 MB". */
export function bytes(n: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Epoch seconds → "2025-01-31 12:00:00Z" (UTC: the same on every machine). */
export function time(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "-";
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;
}

/** Aligned two-column "label  value" lines. */
export function pairs(rows: ReadonlyArray<readonly [string, string]>, indent = ""): string {
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`).join("\n");
}

/** A table with a header row; columns padded to their widest cell. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [bold(line(header)), ...rows.map(line)].join("\n");
}

/** Collapse whitespace and cut to `max` characters with an ellipsis. */
export function oneLineCut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

/** Search snippets mark matches with « »: bold-yellow on a terminal, kept as is otherwise. */
export function highlight(snippet: string, color = useColor()): string {
  if (!color) return snippet;
  return snippet.replace(/«([^»]*)»/g, (_, match: string) => `\x1b[1;33m${match}\x1b[0m`);
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
