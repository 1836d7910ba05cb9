/**
 * The built package as users get it: `node:sqlite` (loaded lazily by name) and every `node:`
 * import keep their full names in dist/ (tsup would otherwise strip the prefix, and a bare
 * "sqlite" would resolve to an npm package), and nothing but built-ins, better-sqlite3 and core
 * is imported. Turbo builds before testing; run `npm run build` first when testing by hand.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const DIST = new URL("../dist/index.js", import.meta.url).pathname;

describe.skipIf(!existsSync(DIST))("dist/ (needs npm run build)", () => {
  const code = existsSync(DIST) ? readFileSync(DIST, "utf8") : "";
  const specifiers = [...code.matchAll(/(?<=^|[;}\n])import\s*(?:[\w$*{][^;"]*?from\s*)?"([^"]+)"/g)].map(
    (m) => m[1],
  );

  it("imports built-ins by their node: names and nothing unexpected", () => {
    // The entry imports core; an empty reading would pass the loop below.
    expect(specifiers).toContain("@sessiondb/core");
    for (const specifier of specifiers) expect(specifier).toMatch(/^(node:|@sessiondb\/core)/);
  });

  it("imports neither node:process, node:fs nor node:module (their ESM namespaces cost a short process 1–7 ms)", () => {
    // The global process is read instead; node:fs and node:module come through getBuiltinModule.
    for (const costly of ["node:process", "node:fs", "node:module", "@sessiondb/core/host"])
      expect(specifiers, `dist imports ${costly}`).not.toContain(costly);
  });

  it('still names "node:sqlite" and "better-sqlite3" for the lazy loaders', () => {
    expect(code).toContain('"node:sqlite"');
    expect(code).toContain('"better-sqlite3"');
    expect(code).not.toMatch(/["']sqlite["']/);
  });
});
