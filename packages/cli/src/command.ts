/** The shape every command file exports, and what a command gets to run with. */
import type { ParseArgsConfig } from "node:util";
import type { GlobalOptions } from "./open.js";
import type { Runtime } from "./runtime.js";

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

/** A command's module exports one of these; its name and summary line are in commands.ts. */
export interface Command {
  /** Words that select it, e.g. "sessions list". */
  name: string;
  /** Synopsis after "sessiondb [--db PATH] ". */
  usage: string;
  /** Help body: arguments, options, output, exit codes worth knowing. */
  help: string;
  /** Command-specific options (global ones are added). */
  options: OptionSpec;
  /** Positional arguments: how many, and their names for messages. */
  args: { min: number; max: number; names: string };
  /** Read command: accepts --json. Write commands accept it too where they report something. */
  json: boolean;
  /** Without --json: why, for the usage error a --json gets (what to use instead). */
  noJson?: string;
  run(context: CommandContext): Promise<number>;
}

export interface CommandContext {
  /** Parsed option values (global and command ones). */
  values: GlobalOptions & { json?: boolean } & Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  /** The runtime's adapter, loaded on first use. */
  runtime(): Promise<Runtime>;
}
