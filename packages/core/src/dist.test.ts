/**
 * The built package: the main entry imports nothing runtime-specific (the driver entry's
 * `lazyNodeFsHost` too: it loads `node:fs` through the global `process` when called), and the
 * host entry keeps `node:` names (which Bun and Deno resolve; tsup would otherwise strip the
 * prefix). Turbo builds before testing; run `npm run build` first when testing by hand.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const DIST = new URL("../dist/", import.meta.url).pathname;

/** The specifiers of a built file's static imports. tsup strips whitespace, so one reads
 * `import{a as b}from"./x.js"`, and it may follow other code directly (`…}import*as c from…`);
 * the step joining the open path's chunks (scripts/join-open-path.mjs) writes the imports it
 * makes as `import { a as b } from './x.js';`. A statement starts the file or follows `;`, `}`
 * or a line break — never a space, which keeps the word "import" at the end of a string
 * (`"… to import"`) from reading as one. */
function importsOf(file: string): string[] {
  const code = readFileSync(join(DIST, file), "utf8");
  const found = [...code.matchAll(/(?<=^|[;}\n])import\s*(?:[\w$*{][^;"']*?from\s*)?["']([^"']+)["']/g)];
  return found.map((m) => m[1] as string);
}

/** The local modules `entries` load before they run (their static graph, the entries included). */
function staticGraph(entries: readonly string[]): Set<string> {
  const loaded = new Set<string>();
  const visit = (file: string) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const specifier of importsOf(file)) if (specifier.startsWith("./")) visit(specifier.slice(2));
  };
  for (const entry of entries) visit(entry);
  return loaded;
}

describe.skipIf(!existsSync(join(DIST, "index.js")))("dist/ (needs npm run build)", () => {
  it("the main entry and its chunks import no runtime modules", () => {
    const chunks = readdirSync(DIST).filter((f) => f.endsWith(".js") && f !== "host.js");
    // The entries import their chunks: a reading that finds no import at all reads nothing.
    expect(importsOf("index.js").length).toBeGreaterThan(0);
    for (const file of chunks) {
      for (const specifier of importsOf(file))
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\//);
    }
  });

  it("the jobs loaded on demand (import, delete, vacuum, backup, repair) are no part of what an open loads", () => {
    const jobs = readdirSync(DIST).filter((f) => /^jobs-.*\.js$/.test(f));
    expect(jobs).toHaveLength(1);
    const loaded = staticGraph(["index.js", "driver.js", "host.js"]);
    expect([...loaded]).not.toContain(jobs[0]);
    // Reached by a dynamic import from that code instead; a name the jobs module alone defines
    // shows it was not inlined into the chunks as well.
    const code = [...loaded].map((file) => readFileSync(join(DIST, file), "utf8")).join("\n");
    expect(code).toMatch(new RegExp(`import\\(["']\\./${jobs[0]?.replace(/[.$-]/g, "\\$&")}["']\\)`));
    expect(code).not.toMatch(/function\*?\s*importSessions\(/);
    expect(readFileSync(join(DIST, jobs[0] as string), "utf8")).toMatch(/function\*?\s*importSessions\(/);
  });

  it("what an open loads is the two entries and one chunk: each module of a start costs its own resolve, compile and link", () => {
    const loaded = [...staticGraph(["index.js", "driver.js"])].sort();
    expect(loaded).toHaveLength(3);
    expect(loaded.slice(0, 2)).toEqual(["driver.js", "index.js"]);
    expect(loaded[2]).toMatch(/^store-[\w-]+\.js$/);
    // The joined chunk is what tsup split, not a copy beside it: the Store is defined once.
    const code = readdirSync(DIST)
      .filter((f) => f.endsWith(".js"))
      .map((file) => readFileSync(join(DIST, file), "utf8"));
    expect(code.join("\n").match(/\bStore=class\b/g)).toHaveLength(1);
  });

  it("the host entry imports node: built-ins by their full names, and otherwise only its chunks", () => {
    const specifiers = importsOf("host.js");
    expect(specifiers).toEqual(expect.arrayContaining(["node:fs", "node:os"]));
    for (const specifier of specifiers) expect(specifier).toMatch(/^(node:|\.\/)/);
  });
});
