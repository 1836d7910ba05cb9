/**
 * A test's reading of a JSON-lines fixture, the way the importer is documented to read one: each
 * complete line parsed, a line that does not parse reported by number, a last line without its
 * newline (still being written) left out. (The importer engine is another package's; this only
 * gives the mapper its input.)
 */
import { readFileSync } from "node:fs";

export interface ReadLines {
  lines: { position: number; value: unknown }[];
  broken: number[];
  truncated: boolean;
}

export function readJsonLines(file: URL): ReadLines {
  const text = readFileSync(file, "utf8");
  const parts = text.split("\n");
  const last = parts.pop() as string;
  const out: ReadLines = { lines: [], broken: [], truncated: last !== "" };
  parts.forEach((line, i) => {
    try {
      out.lines.push({ position: i + 1, value: JSON.parse(line) });
    } catch {
      out.broken.push(i + 1);
    }
  });
  return out;
}
