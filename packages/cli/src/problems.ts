/**
 * How integrity problems read for a person, and where they lead. SQLite's integrity_check lists
 * every damaged page and row ("Tree 21 page 1238: …"), hundreds of lines for one truncated file:
 * the human output shows the first few and how many more there are; --json keeps every line.
 */

/** Lines of one problem a person is shown before the count of the rest. */
export const SHOWN_PROBLEM_LINES = 10;

/** `problem` as a list item: "- " before its first line, continuation lines indented under it,
 * cut after `SHOWN_PROBLEM_LINES` lines with how many were left out. */
export function problemLines(problem: string, indent: string): string[] {
  const lines = problem.split("\n");
  const shown = lines.slice(0, SHOWN_PROBLEM_LINES);
  const out = shown.map((line, i) => `${indent}${i === 0 ? "- " : "  "}${line}`);
  const more = lines.length - shown.length;
  if (more > 0) out.push(`${indent}  … ${more} more line${more === 1 ? "" : "s"} (--json lists them all)`);
  return out;
}

/** What a person does about a corrupt store, at the end of check's and doctor's reports (an
 * error line says it shorter: wording.ts). */
export const REPAIR_HINT =
  'To bring it back, stop every process that uses the store and run "sessiondb repair": it rebuilds the store from what is readable and keeps the damaged file aside ("sessiondb repair --check-only" changes nothing).';
