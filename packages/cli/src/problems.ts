/**
 * How integrity problems read for a person, and where they lead. SQLite's integrity_check lists
 * every damaged page and row ("Tree 21 page 1238: …", "row 7 missing from index …"), hundreds of
 * lines for one truncated file or one misplaced index page: every human report of them (`check`,
 * `repair`, `doctor`) shows the first few lines and how many more there are; --json keeps every
 * line.
 */

/** Lines of an integrity report a person is shown before the count of the rest. */
export const SHOWN_PROBLEM_LINES = 10;

/** `lines` cut after `SHOWN_PROBLEM_LINES`, with a last line saying how many were left out. */
export function shortened(lines: readonly string[]): string[] {
  const more = lines.length - SHOWN_PROBLEM_LINES;
  if (more <= 0) return [...lines];
  return [
    ...lines.slice(0, SHOWN_PROBLEM_LINES),
    `… ${more} more line${more === 1 ? "" : "s"} (--json lists them all)`,
  ];
}

/** `problems` as a list: "- " before each one's first line, its continuation lines indented
 * under it; the whole list `shortened`. */
export function problemLines(problems: readonly string[], indent: string): string[] {
  const items = problems.flatMap((problem) =>
    problem.split("\n").map((line, i) => `${i === 0 ? "- " : "  "}${line}`),
  );
  // The count of the rest (the line past the shown ones) stands under the items' text.
  return shortened(items).map((line, i) => `${indent}${i < SHOWN_PROBLEM_LINES ? "" : "  "}${line}`);
}

/** What a person does about a corrupt store, at the end of check's and doctor's reports (an
 * error line says it shorter: wording.ts). */
export const REPAIR_HINT =
  'To bring it back, stop every process that uses the store and run "sessiondb repair": it rebuilds the store from what is readable and keeps the damaged file aside ("sessiondb repair --check-only" changes nothing).';
