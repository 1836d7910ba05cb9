/**
 * The engine knows only I/O: its modules import the contracts and each other, never the store,
 * its policy, FTS or the locks (CONTRIBUTING's "Layers"; check-cycles sees circles, not
 * direction, so the direction is pinned here).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const ALLOWED = new Set([
  "../driver.js",
  "../errors.js",
  "../executor.js",
  "../transaction.js",
  "../binding-facts.js",
]);

function importsOf(file: string): string[] {
  const source = readFileSync(join(here, file), "utf8");
  return [...source.matchAll(/^(?:import|export)[^;]*?from "([^"]+)";/gms)].map(
    (match) => match[1] as string,
  );
}

describe("engine/", () => {
  const modules = readdirSync(here).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"));

  it("has the runners and the effects", () => {
    expect(modules).toEqual(
      expect.arrayContaining(["effects.ts", "run-sync.ts", "run-async.ts", "savepoint.ts"]),
    );
  });

  for (const module of modules) {
    it(`${module} imports only contracts and engine modules`, () => {
      const outside = importsOf(module).filter((path) => !path.startsWith("./") && !ALLOWED.has(path));
      expect(outside).toEqual([]);
    });
  }
});
