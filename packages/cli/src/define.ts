/**
 * Options defined once, as data: node:util `parseArgs` reads the command line from the
 * definition, the handler's `values` type is inferred from it (`Values`), and help prints the
 * option list from it (`optionHelp`), so the three cannot drift apart. Nothing here knows a
 * command; command.ts builds commands from it.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { oneLine, UsageError } from "./exit.js";

interface Documented {
  /** `-h` for `--help`. */
  short?: string;
  /** What help says the option does: one line, wrapped to the help's width. */
  help: string;
}

/** `--full`: true when given. */
export interface FlagOption extends Documented {
  type: "boolean";
  default?: boolean;
}

/** `--limit N`: the text given, or what `parse` makes of it (a number, a time). */
export interface TextOption<T = unknown> extends Documented {
  type: "string";
  multiple?: false;
  /** The value's name in help: `N` in `--limit N`. */
  value: string;
  /** Used when the option is not given; it goes through `parse` like a given value. */
  default?: string;
  /** Turns the text into the value the handler gets, or throws a UsageError naming `name`. */
  parse?: (text: string, name: string) => T;
}

/** `--role R`, repeatable: every value given, in order. */
export interface ListOption extends Documented {
  type: "string";
  multiple: true;
  value: string;
  default?: readonly string[];
}

export type OptionDef = FlagOption | TextOption | ListOption;
export type OptionDefs = Readonly<Record<string, OptionDef>>;

type ValueOf<D> = D extends { type: "boolean" }
  ? boolean
  : D extends { multiple: true }
    ? string[]
    : D extends { parse: (text: string, name: string) => infer T }
      ? T
      : string;

type Flatten<T> = { [K in keyof T]: T[K] };

/** The parsed values of `O`: each option's type, optional unless it has a default. */
export type Values<O extends OptionDefs> = Flatten<
  { -readonly [K in keyof O as O[K] extends { default: unknown } ? K : never]: ValueOf<O[K]> } & {
    -readonly [K in keyof O as O[K] extends { default: unknown } ? never : K]?: ValueOf<O[K]>;
  }
>;

/** `options` as parseArgs takes them: only the fields it knows (the help is ours). */
export function argsConfig(options: OptionDefs): NonNullable<ParseArgsConfig["options"]> {
  return Object.fromEntries(
    Object.entries(options).map(([name, o]) => [
      name,
      {
        type: o.type,
        ...(o.short ? { short: o.short } : {}),
        ...(o.type === "string" && o.multiple ? { multiple: true } : {}),
      },
    ]),
  );
}

/** `--opt -5` → `--opt=-5` for options that take a value: parseArgs would read `-5` as an
 * option, and the option's own check explains a negative number better. */
function attachNegativeNumbers(args: readonly string[], options: OptionDefs): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    const long = arg.startsWith("--") ? options[arg.slice(2)] : undefined;
    const short = /^-[a-zA-Z]$/.test(arg)
      ? Object.values(options).find((o) => o.short === arg.slice(1))
      : undefined;
    if ((long ?? short)?.type === "string" && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** parseArgs's failure as the CLI's usage error: a missing value names the option. */
function usageError(command: string, error: unknown): UsageError {
  const text = oneLine((error as Error).message);
  const missing = /^Option '(?:-\w, )?(--[\w-]+)(?: <value>)?' argument (missing|is ambiguous)/.exec(text);
  if (missing) {
    const after = missing[2] === "missing" ? "" : " (what follows it is an option)";
    return new UsageError(
      `${command}: ${missing[1]} needs a value${after}; see "sessiondb ${command} --help"`,
    );
  }
  // parseArgs explains the rest well ("Unknown option '--x'"); drop its hints about "--".
  return new UsageError(`${command}: ${text.replace(/\. To specify a positional.*$/, "")}`);
}

/**
 * `args` read against `options`, strictly (an unknown option is a usage error). Defaults are
 * filled in here rather than by parseArgs, and each text value goes through its `parse`, so a
 * bad value is a usage error before the command runs.
 */
export function parseOptions<O extends OptionDefs>(
  command: string,
  args: readonly string[],
  options: O,
): { values: Values<O>; positionals: string[] } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: attachNegativeNumbers(args, options),
      options: argsConfig(options),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw usageError(command, error);
  }
  const values: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(options)) {
    const given = parsed.values[name] ?? (Array.isArray(o.default) ? [...o.default] : o.default);
    if (given === undefined) continue;
    values[name] =
      o.type === "string" && !o.multiple && o.parse ? o.parse(String(given), `--${name}`) : given;
  }
  return { values: values as Values<O>, positionals: parsed.positionals };
}

/** Help's lines are at most this wide (wrapped between words). */
const HELP_WIDTH = 100;

/** `options` as help lines: `  -h, --help   what it does`, descriptions aligned and wrapped. */
export function optionHelp(options: OptionDefs): string {
  const labels = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : ""}--${name}`;
    return o.type === "string" ? `${flag} ${o.value}` : flag;
  });
  const column = 2 + Math.max(...labels.map((l) => l.length)) + 2;
  return Object.values(options)
    .flatMap((o, i) => {
      const lines = wrap(o.help, HELP_WIDTH - column);
      return lines.map((line, n) => `${(n === 0 ? `  ${labels[i]}` : "").padEnd(column)}${line}`);
    })
    .join("\n");
}

/** `text` in lines of at most `width` characters, broken between words (a longer word stays whole). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}
