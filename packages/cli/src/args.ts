/**
 * A command's options parsed with node:util `parseArgs`, with the CLI's own messages where
 * parseArgs's would confuse: a negative number after an option (`--limit -5`) is taken as the
 * option's value, so the option's own check explains it; a missing value names the option.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import type { OptionSpec } from "./command.js";
import { oneLine, UsageError } from "./exit.js";

/** `--opt -5` → `--opt=-5` for options that take a value. */
function attachNegativeNumbers(args: string[], options: OptionSpec): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    const long = arg.startsWith("--") ? options[arg.slice(2)] : undefined;
    const short = /^-[a-zA-Z]$/.test(arg)
      ? Object.entries(options).find(([, o]) => o.short === arg.slice(1))?.[1]
      : undefined;
    if ((long ?? short)?.type === "string" && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

export function parseCommandArgs(
  name: string,
  args: string[],
  options: OptionSpec,
): ReturnType<typeof parseArgs<ParseArgsConfig>> {
  try {
    return parseArgs({
      args: attachNegativeNumbers(args, options),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const text = oneLine((error as Error).message);
    const missing = /^Option '(?:-\w, )?(--[\w-]+)(?: <value>)?' argument (missing|is ambiguous)/.exec(text);
    if (missing) {
      const after = missing[2] === "missing" ? "" : " (what follows it is an option)";
      throw new UsageError(`${name}: ${missing[1]} needs a value${after}; see "sessiondb ${name} --help"`);
    }
    // parseArgs explains the rest well ("Unknown option '--x'"); drop its hints about "--".
    throw new UsageError(`${name}: ${text.replace(/\. To specify a positional.*$/, "")}`);
  }
}
