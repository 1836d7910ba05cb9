/**
 * Commands defined once (src/define.ts, src/command.ts): parseArgs reads the command line from the
 * definitions, `run`'s values are typed from them, help prints their option list, and numbers go
 * through one parser with one wording. Run on the sources, with node:util's own parseArgs.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { allOptions, type CommandValues, defineCommand, type GLOBAL_OPTIONS } from "../src/command.js";
import { COMMANDS } from "../src/commands.js";
import { type OptionDefs, optionHelp, parseOptions, type Values } from "../src/define.js";
import { decimal, integer, parseNumber } from "../src/numbers.js";

const OPTIONS = {
  limit: { type: "string", value: "N", default: "20", parse: integer(), help: "at most N" },
  offset: { type: "string", value: "N", parse: integer(), help: "skip the first N" },
  cost: { type: "string", value: "USD", parse: decimal(), help: "at least USD" },
  role: { type: "string", multiple: true, value: "R", help: "only this role; repeatable" },
  sort: { type: "string", value: "S", help: "rank or newest" },
  full: { type: "boolean", short: "f", help: "everything" },
} as const satisfies OptionDefs;

describe("parseOptions", () => {
  it("gives each option its type: parsed text, lists, flags, defaults through parse", () => {
    const { values, positionals } = parseOptions(
      "x",
      ["q", "--offset", "5", "--role", "user", "-f", "--role", "tool", "--cost", "0.05", "r"],
      OPTIONS,
    );
    expect(values).toEqual({ limit: 20, offset: 5, cost: 0.05, role: ["user", "tool"], full: true });
    expect(positionals).toEqual(["q", "r"]);
    // Options not given and without a default are absent, not undefined keys.
    expect(Object.keys(parseOptions("x", [], OPTIONS).values)).toEqual(["limit"]);
  });

  it("types values from the definition: a default makes an option always there", () => {
    const { values } = parseOptions("x", [], OPTIONS);
    expectTypeOf(values).toEqualTypeOf<{
      limit: number;
      offset?: number;
      cost?: number;
      role?: string[];
      sort?: string;
      full?: boolean;
    }>();
    expectTypeOf<Values<typeof GLOBAL_OPTIONS>>().toEqualTypeOf<{
      db?: string;
      wait?: string;
      help?: boolean;
    }>();
  });

  it("merges the global options into a command's values, and --json only where it has one", () => {
    const withJson = defineCommand({
      name: "t",
      usage: "t",
      options: OPTIONS,
      args: { min: 0, max: 0, names: "" },
      json: true,
      run: async ({ values }) => {
        expectTypeOf(values.json).toEqualTypeOf<boolean | undefined>();
        expectTypeOf(values.db).toEqualTypeOf<string | undefined>();
        expectTypeOf(values.limit).toEqualTypeOf<number>();
        return 0;
      },
    });
    expectTypeOf(withJson.run)
      .parameter(0)
      .toHaveProperty("values")
      .toEqualTypeOf<CommandValues<typeof OPTIONS>>();
    expectTypeOf<CommandValues<typeof OPTIONS, false>>().not.toHaveProperty("json");
    const withoutJson = { ...withJson, json: false as const };
    expect(Object.keys(allOptions(withJson))).toEqual([
      ...["db", "wait", "help", "version"],
      ...Object.keys(OPTIONS),
      "json",
    ]);
    expect(Object.keys(allOptions(withoutJson))).not.toContain("json");
  });

  it("reads a negative number after an option as its value, so the option's check names it", () => {
    expect(() => parseOptions("x", ["--offset", "-5"], OPTIONS)).toThrow(
      '--offset expects a non-negative integer, got "-5"',
    );
  });

  it("says which option lacks its value, and what an unknown option is", () => {
    expect(() => parseOptions("x", ["--sort"], OPTIONS)).toThrow(
      'x: --sort needs a value; see "sessiondb x --help"',
    );
    expect(() => parseOptions("x", ["--sort", "--full"], OPTIONS)).toThrow(
      "x: --sort needs a value (what follows it is an option)",
    );
    expect(() => parseOptions("x", ["--frob"], OPTIONS)).toThrow("x: Unknown option '--frob'");
  });

  it("parses a default like a given value: a bad one fails the same way", () => {
    const bad = { n: { type: "string", value: "N", default: "ten", parse: integer(), help: "" } } as const;
    expect(() => parseOptions("x", [], bad)).toThrow('--n expects a non-negative integer, got "ten"');
  });
});

describe("parseNumber", () => {
  it.each([
    ["ten", {}, '--n expects a non-negative integer, got "ten"'],
    ["-1", {}, '--n expects a non-negative integer, got "-1"'],
    [" 5", {}, '--n expects a non-negative integer, got " 5"'],
    ["1e3", {}, '--n expects a non-negative integer, got "1e3"'],
    ["0.5", {}, '--n expects a non-negative integer, got "0.5"'],
    ["99999999999999999999", {}, "--n is at most 9007199254740991, got 99999999999999999999"],
    ["0", { min: 1 }, "--n is at least 1, got 0"],
    ["70000", { max: 65535 }, "--n is at most 65535, got 70000"],
    ["0x10", { integer: false }, '--n expects a non-negative number, got "0x10"'],
  ])("%j with %j: %s", (text, spec, message) => {
    expect(() => parseNumber(text, "--n", spec)).toThrow(message);
  });

  it("accepts whole numbers, and fractions where asked", () => {
    expect(parseNumber("0", "--n")).toBe(0);
    expect(parseNumber("9007199254740991", "--n")).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseNumber("65535", "--n", { max: 65535 })).toBe(65535);
    expect(parseNumber("0.05", "--n", { integer: false })).toBe(0.05);
    expect(parseNumber(".5", "--n", { integer: false })).toBe(0.5);
  });
});

describe("optionHelp", () => {
  it("prints each option with its value name, aligned, wrapped between words", () => {
    const long = "word ".repeat(40).trim();
    const text = optionHelp({ ...OPTIONS, sort: { ...OPTIONS.sort, help: long } });
    const lines = text.split("\n");
    expect(lines[0]).toBe("  --limit N   at most N");
    expect(text).toContain("\n  -f, --full  everything");
    expect(text).toContain("\n  --role R    only this role; repeatable");
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    const sort = lines.findIndex((l) => l.startsWith("  --sort S"));
    expect(lines[sort + 1]).toMatch(/^ {14}word/);
  });
});

describe("every command", () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    "%s: its usage line names each of its options, each with a line of help",
    async (_, entry) => {
      const command = await entry.load();
      for (const [name, option] of Object.entries(command.options as OptionDefs)) {
        expect(command.usage).toContain(`--${name}`);
        expect(option.help.length).toBeGreaterThan(0);
      }
      expect(command.usage.includes("--json")).toBe(command.json);
    },
  );
});
