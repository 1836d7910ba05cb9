/**
 * `sessiondb import --from <format> [PATH…]`: another agent's sessions (Claude Code, Codex,
 * Hermes, …) read from where it keeps them, through @sessiondb/formats' importFrom; a format
 * kept in a database (Hermes) is read read-only through this runtime's SQLite driver. Loaded
 * only for this mode. Re-running adds only what is new; `--watch` runs it again every second until stopped,
 * each run a series of short transactions, so no write lock is held between two runs.
 */
import * as fs from "node:fs";
import type { ImportResult } from "@sessiondb/formats";
import type { CommandContext } from "../command.js";
import { EXIT, UsageError } from "../exit.js";
import { plural, print, printJson } from "../format.js";
import { Interrupt } from "../interrupt.js";
import { type GlobalOptions, openFor } from "../open.js";
import { fileError } from "../paths.js";
import { Progress } from "../progress.js";
import { visible } from "../visible.js";

/** How long --watch waits between two runs. */
const WATCH_EVERY_MS = 1000;

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

function summary(from: string, database: boolean, r: ImportResult): string {
  const parts = [
    `imported ${plural(r.messages, "message")} from ${plural(r.files.read, database ? "database" : "file")} (${from})`,
    `${plural(r.sessions.created, "new session")}, ${r.sessions.grown} grown`,
  ];
  if (r.sessions.linked) parts.push(`${r.sessions.linked} linked to a parent that came later`);
  if (r.files.resumed)
    parts.push(`${plural(r.files.resumed, "file")} read on from where the last run stopped`);
  if (r.files.unchanged > 0) parts.push(`${plural(r.files.unchanged, "file")} unchanged`);
  if (r.sessions.unchanged) parts.push(`${plural(r.sessions.unchanged, "session")} unchanged`);
  if (r.partial > 0) parts.push(`${plural(r.partial, "half-written last line")} left for the next run`);
  const unknown = Object.entries(r.unknown);
  if (unknown.length > 0)
    parts.push(`kept lines of unknown types: ${unknown.map(([t, n]) => `${t} (${n})`).join(", ")}`);
  const unpriced = Object.keys(r.unpriced);
  if (unpriced.length > 0)
    parts.push(`no list price for ${unpriced.join(", ")}: their cost is not estimated`);
  return visible(parts.join("; "));
}

/** What `import --from` reads of import's options. */
type FromValues = GlobalOptions & { json?: boolean; watch?: boolean };

export async function importFromCommand(
  from: string,
  { values, positionals, runtime }: CommandContext<FromValues>,
): Promise<number> {
  const { databaseFormats, importFrom, lineFormats } = await import("@sessiondb/formats");
  const format = lineFormats.get(from) ?? databaseFormats.get(from);
  if (!format)
    throw new UsageError(
      `--from ${JSON.stringify(from)}: not a format this version imports; it imports ${[...lineFormats.keys(), ...databaseFormats.keys()].join(", ")}`,
    );
  // A database format's files are read through this runtime's own SQLite driver, read-only.
  const database = databaseFormats.has(from);
  for (const path of positionals) {
    try {
      fs.statSync(path);
    } catch (error) {
      throw fileError(error, `cannot read ${path}`, "nothing was imported");
    }
  }
  const { store } = await openFor(runtime, values, "create");
  const driver = database ? (await runtime()).driver : undefined;
  const stop = new Interrupt();
  const watch = values.watch === true;
  let problems = 0;
  try {
    do {
      const bar =
        !values.json && !watch && process.stderr.isTTY
          ? new Progress({ label: "import", unit: database ? "sessions" : "files" })
          : undefined;
      let result: ImportResult;
      try {
        result = await importFrom(store, format, positionals, {
          signal: stop.signal,
          onProgress: (p) => bar?.update(p.sessions ?? p.files, p.sessionsTotal ?? p.filesTotal),
          ...(driver ? { driver } : {}),
        });
        bar?.finish();
      } catch (error) {
        if (!stop.aborted) throw error;
        bar?.finish("interrupted");
        if (watch) break;
        throw stop.error(
          "interrupted; what was written is kept, and the next import goes on from there (nothing is stored twice)",
        );
      }
      problems += result.problems.length;
      if (values.json) printJson({ format: from, ...result });
      else {
        for (const p of result.problems)
          process.stderr.write(
            `${visible(`${p.file}${p.line !== undefined ? `:${p.line}` : ""}${p.table !== undefined ? ` (${p.table} row ${p.row})` : ""}: ${p.message}`)}\n`,
          );
        if (!watch || result.messages > 0 || result.problems.length > 0)
          print(summary(from, database, result));
      }
      if (watch) await wait(WATCH_EVERY_MS, stop.signal);
    } while (watch && !stop.aborted);
  } finally {
    await store.close();
  }
  // --watch runs until it is stopped, which is how it is meant to end: exit 0.
  return problems > 0 && !watch ? EXIT.BAD_INPUT : EXIT.OK;
}
