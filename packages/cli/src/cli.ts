/**
 * sessiondb — the command-line tool (spec §9). Parses with node:util `parseArgs` (Node, Bun and
 * Deno all provide it), runs one command, and turns every failure into one line on stderr and
 * an exit code from the table in exit.ts.
 */
import { parseArgs } from "node:util";
import { type AnyCommand, allOptions, GLOBAL_OPTIONS, JSON_OPTION, VERSION_OPTION } from "./command.js";
import { COMMANDS, type CommandEntry } from "./commands.js";
import { argsConfig, optionHelp, parseOptions } from "./define.js";
import { classify, describe, EXIT, redactSecrets, UsageError } from "./exit.js";
import { budgetsOf, describeLockWaits } from "./lock-wait.js";
import { type GlobalOptions, patience, shownLocation, storeLocation } from "./open.js";
import { flushOut, guardOutput, writeErr, writeOut } from "./output.js";
import { envIfAllowed } from "./permissions.js";
import { loadRuntime, type Runtime } from "./runtime.js";
import { closest } from "./suggest.js";
import { visible } from "./visible.js";
import { preloadWidths } from "./width.js";
import { rememberStore } from "./wording.js";

/** The version in package.json, put in at build time (tsup.config.ts): no file read at startup. */
declare const __SESSIONDB_CLI_VERSION__: string;
export const VERSION = __SESSIONDB_CLI_VERSION__;

/** What the command line may hold before the command words are known. */
const BEFORE_COMMAND = argsConfig({ ...GLOBAL_OPTIONS, ...VERSION_OPTION });

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `sessiondb ${VERSION} — inspect, search, move and maintain a sessiondb store`,
    "",
    "Usage: sessiondb [--db PATH] <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    optionHelp({
      ...GLOBAL_OPTIONS,
      json: {
        ...JSON_OPTION.json,
        help: "machine-readable output (every command but export, serve and demo)",
      },
      ...VERSION_OPTION,
    }),
    "",
    "Exit codes: 0 ok · 1 failure · 2 usage · 3 no store · 4 busy · 5 corrupt · 6 unusable store",
    "            7 no such session · 8 bad import lines · 9 unhealthy · 10 disk full · 130 interrupted",
    'Run "sessiondb <command> --help" for details.',
  ].join("\n");
}

/** A command's help: its prose, then its options and the global ones, printed from their definitions. */
function commandHelp(entry: CommandEntry, command: AnyCommand): string {
  const own = Object.keys(command.options).length > 0;
  return [
    `Usage: sessiondb [--db PATH] ${command.usage}`,
    "",
    `${entry.summary[0]?.toUpperCase()}${entry.summary.slice(1)}.`,
    ...(command.help ? ["", command.help] : []),
    ...(own ? ["", "Options:", optionHelp(command.options)] : []),
    ...(command.notes ? ["", command.notes] : []),
    "",
    "Global options:",
    optionHelp({ ...GLOBAL_OPTIONS, ...(command.json ? JSON_OPTION : {}) }),
  ].join("\n");
}

function groupHelp(group: string): string {
  const members = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  return [
    `Usage: sessiondb [--db PATH] ${group} <${members.map((c) => c.name.slice(group.length + 1)).join("|")}> [options]`,
    "",
    ...members.map((c) => `  ${c.name}  ${c.summary}`),
    "",
    `Run "sessiondb ${group} <command> --help" for details.`,
  ].join("\n");
}

/** A usage error for command words that name no command, with the closest one as a hint. */
function unknownCommand(words: string[]): UsageError {
  const name = words.join(" ");
  const names = [...new Set(COMMANDS.flatMap((c) => [c.name, c.name.split(" ")[0] as string]))];
  const guess = closest(name, names) ?? (words.length === 1 ? undefined : closest(words[0] as string, names));
  const hint = guess ? `did you mean "${guess}"? ` : "";
  return new UsageError(`unknown command "${name}"; ${hint}run "sessiondb --help" for the list`);
}

/** Split argv into the command words and the rest, tolerating global options before them. */
function findCommand(argv: string[]): { words: string[]; rest: string[] } {
  const { tokens } = parseArgs({
    args: argv,
    options: BEFORE_COMMAND,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const positional = tokens.filter((t) => t.kind === "positional");
  const first = positional[0];
  if (!first) return { words: [], rest: argv };
  const isGroup = COMMANDS.some((c) => c.name.startsWith(`${first.value} `));
  const second = isGroup ? positional[1] : undefined;
  const taken = new Set([first.index, ...(second ? [second.index] : [])]);
  return {
    words: [first.value, ...(second ? [second.value] : [])],
    rest: argv.filter((_, i) => !taken.has(i)),
  };
}

async function run(argv: string[]): Promise<number> {
  const { words, rest } = findCommand(argv);
  const name = words.join(" ");
  if (words[0] === "help") {
    // The topic is the words after "help", not the values of options around them (--db PATH).
    const { positionals } = parseArgs({
      args: rest,
      options: BEFORE_COMMAND,
      strict: false,
      allowPositionals: true,
    });
    const topic = words.slice(1).concat(positionals);
    const entry = COMMANDS.find((c) => c.name === topic.join(" "));
    const group = topic.length === 1 && COMMANDS.some((c) => c.name.startsWith(`${topic[0]} `));
    if (topic.length > 0 && !entry && !group) throw unknownCommand(topic);
    const text = entry
      ? commandHelp(entry, await entry.load())
      : group
        ? groupHelp(topic[0] as string)
        : mainHelp();
    writeOut(`${text}\n`);
    return EXIT.OK;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    const asGroup = words[0] && COMMANDS.some((c) => c.name.startsWith(`${words[0]} `));
    if (words.length === 0 || (asGroup && words.length === 1)) {
      const wantsHelp = asksForHelp(rest);
      if (!wantsHelp && rest.some((a) => a === "--version" || a === "-V")) {
        writeOut(`${VERSION}\n`);
        return EXIT.OK;
      }
      const text = asGroup ? groupHelp(words[0] as string) : mainHelp();
      if (wantsHelp) {
        writeOut(`${text}\n`);
        return EXIT.OK;
      }
      // With --json, stderr carries the one JSON error line and nothing else.
      if (!wantsJson(argv)) writeErr(`${text}\n`);
      throw new UsageError(asGroup ? `"${words[0]}" needs a subcommand` : "no command given");
    }
    throw unknownCommand(words);
  }
  // The chosen command's module only: the others stay unloaded (commands.ts).
  const command = await entry.load();
  // Help is text, whatever else is on the line (--json included, or an option it would refuse).
  if (asksForHelp(rest)) {
    writeOut(`${commandHelp(entry, command)}\n`);
    return EXIT.OK;
  }
  if (!command.json && rest.includes("--json"))
    throw new UsageError(`${name} has no --json: ${command.noJson ?? "its output is text"}`);
  const { values, positionals } = parseOptions(name, rest, allOptions(command));
  if (positionals.length < command.args.min)
    throw new UsageError(`${name} needs ${command.args.names}; see "sessiondb ${name} --help"`);
  if (positionals.length > command.args.max) {
    throw new UsageError(
      `${name} takes ${command.args.max === 0 ? "no arguments" : `only ${command.args.names}`}, got ${JSON.stringify(positionals.join(" "))}`,
    );
  }
  nameTheStore(name, values);
  let runtime: Promise<Runtime> | undefined;
  return command.run({
    values,
    positionals,
    runtime: () => {
      runtime ??= loadRuntime();
      return runtime;
    },
  });
}

/** Tell the error wording and the lock-wait notice which store this is and how long a lock is
 * waited for. A --db or --wait that is wrong is left for the command to report as it opens the
 * store. */
function nameTheStore(command: string, values: GlobalOptions): void {
  try {
    const where = storeLocation(values);
    const shown = shownLocation(where);
    rememberStore(shown, where.kind === "server");
    describeLockWaits(shown, budgetsOf(command, patience(values)));
  } catch {
    // Reported by the command itself.
  }
}

/** Whether the command line asks for help: --help or -h before a "--" (after it they are text). */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

function wantsJson(argv: string[]): boolean {
  return argv.includes("--json");
}

/** Run the CLI and exit. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  guardOutput();
  let code: number;
  try {
    await preloadWidths();
    code = await run(argv);
  } catch (error) {
    const { exitCode, code: name } = classify(error);
    let message = describe(error);
    if (exitCode === EXIT.BUSY && name.startsWith("SQLITE_")) {
      // A raw SQLite BUSY that escaped the library's patience: say what it means.
      message +=
        ": another process holds a lock on the store; nothing was changed — retry later, or wait longer with --wait MS";
    }
    if (wantsJson(argv)) writeErr(`${JSON.stringify({ error: { code: name, exit: exitCode, message } })}\n`);
    else writeErr(`sessiondb: ${visible(message)} [${name}]\n`);
    if (exitCode === EXIT.FAILURE && envIfAllowed("SESSIONDB_DEBUG") && error instanceof Error)
      writeErr(`${redactSecrets(String(error.stack))}\n`);
    code = exitCode;
  }
  // Let stdout drain (a pipe may be slow) before exiting with the code.
  await flushOut();
  endWith(code);
}

/** How long a command that left something running (a socket, a timer) gets before
 * `process.exit` ends it: none of ours does on its normal path. */
const EXIT_FALLBACK_MS = 100;

/**
 * End the process with `code`: it ends on its own once nothing is left to run, and
 * `process.exit` is only the fallback. On Node 24, `process.exit` can hang for ever: it joins V8's
 * background threads before it tears V8 down, and a background compile that is waiting for a
 * garbage collection at that moment waits for one that never comes (nodejs/node#54918). A CLI
 * call in our test suite hung so for ten minutes after its work was done. A process that ends on
 * its own tears V8 down first, which wakes that thread.
 */
function endWith(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), EXIT_FALLBACK_MS).unref();
}

void main();
