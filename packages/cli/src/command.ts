/**
 * What a command is: one definition (`defineCommand`) from which the CLI parses its options, types
 * the values its `run` gets, and prints its help. The global options are one shared definition
 * merged into every command's.
 */
import type { OptionDefs, Values } from "./define.js";
import { DEFAULT_PATIENCE } from "./open.js";
import type { Runtime } from "./runtime.js";

/** Options every command accepts, listed in every help. */
export const GLOBAL_OPTIONS = {
  db: {
    type: "string",
    value: "PATH",
    help: "the store (default: $SESSIONDB_PATH, else ~/.sessiondb/state.db); a libSQL server URL (libsql://, https://, wss://…) works too, token in $SESSIONDB_AUTH_TOKEN",
  },
  wait: {
    type: "string",
    value: "MS",
    help: `how long to wait for a store locked by another process (default ${DEFAULT_PATIENCE.openMs}; ${DEFAULT_PATIENCE.appendMs} for import's writes)`,
  },
  help: { type: "boolean", short: "h", help: "help for any command" },
} as const satisfies OptionDefs;

/** Accepted by every command too (`sessiondb --version` answers it before any command runs), so
 * listed in the main help only. */
export const VERSION_OPTION = {
  version: { type: "boolean", short: "V", help: "the version of sessiondb" },
} as const satisfies OptionDefs;

/** Added to the commands with `json: true`. */
export const JSON_OPTION = {
  json: { type: "boolean", help: "machine-readable output on stdout" },
} as const satisfies OptionDefs;

/** Every option a command with options `O` accepts. */
type AllOptions<O extends OptionDefs, J extends boolean> = typeof GLOBAL_OPTIONS &
  typeof VERSION_OPTION &
  O &
  (J extends true ? typeof JSON_OPTION : Record<never, never>);

/** Every option `command` accepts: the global ones, its own, and --json where it has one. */
export function allOptions<O extends OptionDefs, J extends boolean>(
  command: Command<O, J>,
): AllOptions<O, J> {
  // The spread is that intersection; TypeScript cannot follow a conditional spread of a generic.
  return {
    ...GLOBAL_OPTIONS,
    ...VERSION_OPTION,
    ...command.options,
    ...(command.json ? JSON_OPTION : {}),
  } as AllOptions<O, J>;
}

/** The values a command with options `O` (and --json when `J`) runs with. */
export type CommandValues<O extends OptionDefs, J extends boolean = true> = Values<AllOptions<O, J>>;

export interface CommandContext<V = Readonly<Record<string, unknown>>> {
  /** Parsed option values (global and command ones), typed from the definitions. */
  values: V;
  positionals: string[];
  /** The runtime's adapter, loaded on first use. */
  runtime(): Promise<Runtime>;
}

/** A command's module exports one of these; its name and summary line are in commands.ts. */
export interface Command<O extends OptionDefs = OptionDefs, J extends boolean = boolean> {
  /** Words that select it, e.g. "sessions list". */
  name: string;
  /** Synopsis after "sessiondb [--db PATH] ". */
  usage: string;
  /** Help before the option list: what it does, its arguments. */
  help?: string;
  /** Help after the option list: output, exit codes worth knowing. */
  notes?: string;
  /** Command-specific options (the global ones are added), each with its line of help. */
  options: O;
  /** Positional arguments: how many, and their names for messages. */
  args: { min: number; max: number; names: string };
  /** Read command: accepts --json. Write commands accept it too where they report something. */
  json: J;
  /** Without --json: why, for the usage error a --json gets (what to use instead). */
  noJson?: string;
  // A method, so that every Command<O, J> is a Command (its context is checked both ways).
  run(context: CommandContext<CommandValues<O, J>>): Promise<number>;
}

/** Any command, as commands.ts lists them: cli.ts parses its values with parseOptions from its
 * own options, the values its inferred `run` type describes. */
// biome-ignore lint/suspicious/noExplicitAny: the list holds commands of every option type
export type AnyCommand = Command<any, boolean>;

/** A command from its definition, with `run`'s values inferred from `options` and `json`. */
export function defineCommand<const O extends OptionDefs, const J extends boolean>(
  definition: Command<O, J>,
): Command<O, J> {
  return definition;
}
