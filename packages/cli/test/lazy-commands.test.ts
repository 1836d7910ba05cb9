/**
 * The built CLI loads only the command it runs (src/commands.ts): the entry's static module graph
 * holds no command, each command is a chunk reached by `import()`, and a short command's own
 * graph leaves out the web app, the import formats and the other commands. Read from dist/
 * (turbo builds before testing).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const DIST = new URL("../dist/", import.meta.url).pathname;

/** Static import specifiers of a built file: the build strips whitespace, so a statement reads
 * `import{a as b}from"./x.js"` and starts the file or follows `;`, `}` or a line break. */
function staticImports(file: string): string[] {
  const code = readFileSync(join(DIST, file), "utf8");
  const found = code.matchAll(/(?<=^|[;}\n])import\s*(?:[\w$*{][^;"]*?from\s*)?"([^"]+)"/g);
  return [...found].map((m) => m[1] as string);
}

/** The files and bare packages `file` loads before it runs (its static graph, itself included). */
function staticGraph(file: string): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    if (!name.startsWith("./") && name !== file) return;
    for (const specifier of staticImports(name.replace(/^\.\//, ""))) visit(specifier);
  };
  visit(file);
  return seen;
}

/** The chunk `import()` reaches for the command module named `stem` (esbuild names it so). */
function commandChunk(stem: string): string {
  const chunk = readdirSync(DIST).find((f) => new RegExp(`^${stem}-[A-Z0-9]+\\.js$`).test(f));
  if (!chunk) throw new Error(`no ${stem}-*.js in dist/`);
  return `./${chunk}`;
}

const HEAVY = [
  "hono",
  "hono/html",
  "hono/utils/html",
  "@hono/node-server",
  "markdown-it",
  "@sessiondb/formats",
  "@sessiondb/libsql",
];
const COMMAND_MODULES = ["stats", "usage", "sessions", "manage", "search", "export", "import", "doctor"];

describe("the built CLI loads the command it runs and no other", () => {
  it("the entry's static graph holds no command module, and reaches each by import()", () => {
    const entry = staticGraph("cli.js");
    const code = readFileSync(join(DIST, "cli.js"), "utf8");
    for (const stem of [...COMMAND_MODULES, "fts", "serve", "repair", "backup", "vacuum", "check", "demo"]) {
      const chunk = commandChunk(stem);
      expect(entry, `cli.js loads ${chunk} before it runs`).not.toContain(chunk);
      expect(code).toContain(`import("${chunk}")`);
    }
    for (const name of HEAVY) expect(entry).not.toContain(name);
  });

  it("stats loads neither the web app, nor the formats, nor another command", () => {
    const graph = staticGraph(commandChunk("stats"));
    for (const name of HEAVY) expect(graph).not.toContain(name);
    for (const other of [...COMMAND_MODULES.filter((m) => m !== "stats"), "fts", "serve"])
      expect(graph).not.toContain(commandChunk(other));
    // The reading is not empty: the command shares the CLI's modules through chunks.
    expect([...graph].some((name) => name.startsWith("./chunk-"))).toBe(true);
  });

  it("no command loads get-east-asian-width before it prints a text that is not plain ASCII", () => {
    for (const stem of COMMAND_MODULES)
      expect(staticGraph(commandChunk(stem))).not.toContain("get-east-asian-width");
    expect(staticGraph("cli.js")).not.toContain("get-east-asian-width");
  });

  it("sessions loads no HTML template: hono's comes with the export formats and the web app only", () => {
    const graph = staticGraph(commandChunk("sessions"));
    for (const name of HEAVY) expect(graph).not.toContain(name);
  });

  it("serve loads markdown-it only when a transcript renders, by import()", () => {
    expect(staticGraph(commandChunk("serve"))).not.toContain("markdown-it");
    const app = commandChunk("app");
    expect(staticGraph(app)).not.toContain("markdown-it");
    expect(readFileSync(join(DIST, app), "utf8")).toContain('import("markdown-it")');
  });
});
