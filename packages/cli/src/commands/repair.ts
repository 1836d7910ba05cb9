import * as fs from "node:fs";
import * as nodePath from "node:path";
import type { RepairReport, TableCounts } from "@sessiondb/core";
import { defineCommand } from "../command.js";
import { EXIT, StoreMissingError } from "../exit.js";
import { count, print, printJson } from "../format.js";
import { Interrupt } from "../interrupt.js";
import { storePath } from "../open.js";
import { problemLines } from "../problems.js";
import { visible } from "../visible.js";
import { cliProse } from "../wording.js";

function counts(before: TableCounts, after: TableCounts | undefined): string {
  const show = (n: number | null | undefined) => (n === null || n === undefined ? "?" : count(n));
  return (["sessions", "messages", "usage"] as const)
    .map((table) => `${table} ${show(before[table])} → ${show(after?.[table])}`)
    .join(", ");
}

const ranges = (list: Array<[number, number]>) =>
  list.map(([lo, hi]) => (lo === hi ? String(lo) : `${lo}-${hi}`)).join(", ");

/** The report for a person: what was wrong, what was tried, what it cost, where the files are. */
function describe(report: RepairReport): string[] {
  const lines = [`repair  ${report.path}`];
  if (report.lockOverridden) lines.push(`  forced past: another process held the ${report.lockOverridden}`);
  if (report.strategy === "none")
    return [...lines, "  sound: integrity_check, FTS integrity-check and row counts found nothing to repair"];
  lines.push(
    `  problems found (${report.problemsBefore.length}):`,
    ...problemLines(report.problemsBefore.map(cliProse), "    "),
  );
  for (const attempt of report.attempts) {
    // The first line of what was left: the whole list is the problems above, again.
    const left = cliProse(attempt.problems[0]?.split("\n")[0] ?? "unknown");
    lines.push(`  tried ${attempt.strategy}: ${attempt.ok ? "sound afterwards" : `failed (${left})`}`);
  }
  lines.push(`  rows: ${counts(report.countsBefore, report.countsAfter)}`);
  const lost = report.lost;
  if (lost) {
    const nothing =
      lost.messageIdRanges.length === 0 &&
      lost.sessions.length === 0 &&
      lost.usageRowidRanges.length === 0 &&
      lost.unreadable.length === 0;
    if (nothing) lines.push("  lost: nothing");
    if (lost.messageIdRanges.length > 0) {
      const n =
        lost.messagesLost === undefined
          ? "messages (unreadable id ranges)"
          : `${count(lost.messagesLost)} messages`;
      lines.push(`  lost: ${n}, ids ${ranges(lost.messageIdRanges)}`);
      if (lost.sessionsWithLostMessages.length > 0)
        lines.push(`    from sessions ${lost.sessionsWithLostMessages.join(", ")}`);
    }
    if (lost.sessions.length > 0) lines.push(`  lost session rows: ${lost.sessions.join(", ")}`);
    if (lost.placeholderSessions.length > 0)
      lines.push(
        `  re-created as placeholders (their messages survived): ${lost.placeholderSessions.join(", ")}`,
      );
    if (lost.usageRowidRanges.length > 0)
      lines.push(`  lost usage rows (rowids ${ranges(lost.usageRowidRanges)})`);
    for (const table of lost.unreadable) lines.push(`  unreadable: ${table}`);
  }
  if (report.strategy === undefined) lines.push("  no strategy produced a sound store; nothing was changed");
  else if (report.outcome === "swapped")
    lines.push(`  repaired with ${report.strategy}; the damaged original is kept at ${report.original}`);
  else if (report.outcome === "written")
    lines.push(`  repaired with ${report.strategy}; written to ${report.output}`);
  else lines.push(`  --check-only: ${report.strategy} would repair it; nothing was changed`);
  return lines;
}

export const repair = defineCommand({
  name: "repair",
  usage: "repair [--check-only] [--output PATH] [--force] [--json]",
  help: [
    "Copies the store through SQLite to a scratch file beside it and repairs the copy, least",
    "destructive strategy first, checking after each (integrity_check, foreign_key_check, FTS5",
    "integrity-check, row counts): FTS rebuild, REINDEX, VACUUM INTO, and last a row-by-row",
    "salvage into a fresh store that reports exactly what it could not recover (rows the checks",
    "name damaged are never kept as sound: while one is there, only the salvage runs). Then the",
    "repaired store replaces the damaged one (under its write lock) and the original is kept as",
    "<db>.corrupt-<timestamp> (0600).",
    "",
    "Run it with every process that uses the store stopped: it refuses a store whose lock another",
    "process holds and says which lock it saw.",
  ].join("\n"),
  options: {
    "check-only": {
      type: "boolean",
      help: "diagnose and try the repair on the scratch copy; change nothing",
    },
    output: {
      type: "string",
      value: "PATH",
      help: "write the repaired store to PATH instead (the damaged store stays)",
    },
    force: { type: "boolean", help: "repair even though another process holds a lock on the store" },
  },
  notes: [
    "Exit 0 when the store is sound or was repaired (lost rows are listed), 5 when it is damaged",
    "and --check-only was given or no strategy worked, 4 when another process holds it.",
  ].join("\n"),
  args: { min: 0, max: 0, names: "" },
  json: true,
  async run({ values, runtime }) {
    const { path } = storePath(
      values,
      "repair",
      'the server repairs its own files; "sessiondb check" runs the integrity checks through it, and "sessiondb fts rebuild" rebuilds the index',
    );
    if (!fs.existsSync(path)) throw new StoreMissingError(path);
    const rt = await runtime();
    const output = values.output === undefined ? undefined : nodePath.resolve(values.output);
    // Ctrl-C (or SIGTERM, SIGHUP) stops the repair between its steps, before it swaps anything
    // in: its scratch copies (each a full copy of the store) are removed.
    const stop = new Interrupt();
    let report: RepairReport;
    try {
      report = await rt.adapter.repairStore(path, {
        driver: rt.driver,
        checkOnly: values["check-only"] === true,
        force: values.force === true,
        signal: stop.signal,
        ...(output ? { output } : {}),
      });
    } catch (error) {
      if (stop.aborted) throw stop.error(`repair interrupted by ${stop.received}; nothing was changed`);
      throw error;
    }
    // Every field of the report, absent ones as null: JSON would drop an undefined one.
    if (values.json)
      printJson({
        ...report,
        strategy: report.strategy ?? null,
        countsAfter: report.countsAfter ?? null,
        lost: report.lost ?? null,
        lockOverridden: report.lockOverridden ?? null,
        original: report.original ?? null,
        output: report.output ?? null,
      });
    // Lost sessions are named by their stored ids, which may hold control characters.
    else print(visible(describe(report).join("\n")));
    if (report.strategy === "none") return EXIT.OK;
    return report.outcome === "unchanged" ? EXIT.CORRUPT : EXIT.OK;
  },
});
