/**
 * The built package as users get it: `dist/` must still import `bun:sqlite` and `node:fs` by
 * their full names (tsup would otherwise strip `node:`), and must work when imported.
 * Turbo builds before testing; run `npm run build` first when testing by hand.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const DIST = new URL("../dist/index.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "sessiondb-bun-dist-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("dist/", () => {
  it("exists (run npm run build)", () => {
    expect(existsSync(DIST)).toBe(true);
  });

  it("imports bun:sqlite by its full name and no built-in by a bare name", () => {
    const code = readFileSync(DIST, "utf8");
    const specifiers = [...code.matchAll(/(?<=^|[;}\n])import\s*(?:[\w$*{][^;"]*?from\s*)?"([^"]+)"/g)].map(
      (m) => m[1],
    );
    expect(specifiers).toContain("bun:sqlite");
    // File-system work goes through @sessiondb/core/host (whose own dist test checks its node: names).
    for (const bare of ["fs", "os", "path", "process", "sqlite"]) expect(specifiers).not.toContain(bare);
    // Only runtime built-ins and core: nothing else may be bundled in or required.
    for (const specifier of specifiers) expect(specifier).toMatch(/^(bun:|node:|@sessiondb\/core)/);
  });

  it("opens a store, appends and reads back through the built entry point", async () => {
    const { openStore, Store } = await import(DIST);
    const store = openStore(join(dir, "state.db"));
    expect(store).toBeInstanceOf(Store);
    expect(store.driverName).toBe("bun:sqlite");
    store.createSession({ id: "s", source: "cli" });
    store.appendMessage("s", { role: "user", content: "hello from dist" });
    expect(store.getMessages("s").map((m: { content: unknown }) => m.content)).toEqual(["hello from dist"]);
    store.close();
  });
});
