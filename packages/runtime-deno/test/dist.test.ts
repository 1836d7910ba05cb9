/**
 * The npm build as users get it: `dist/` must still import `node:sqlite` by its full name (tsup
 * would otherwise strip `node:`), import no built-in by a bare name (file-system work goes
 * through core's host, `lazyNodeFsHost`), and must work when Deno imports it.
 * Turbo builds before testing; run `npm run build` first when testing by hand.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

const DIST = new URL("../dist/index.js", import.meta.url);
const dir = mkdtempSync(join(tmpdir(), "sessiondb-deno-dist-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("dist/", () => {
  it("exists, and imports node:sqlite by its full name", () => {
    assert.ok(existsSync(DIST), "dist/index.js is missing: run npm run build");
    const code = readFileSync(DIST, "utf8");
    const specifiers = [...code.matchAll(/(?<=^|[;}\n])import\s*(?:[\w$*{][^;"]*?from\s*)?"([^"]+)"/g)].map(
      (m) => m[1],
    );
    assert.ok(specifiers.includes("node:sqlite"), specifiers.join(", "));
    for (const specifier of specifiers) assert.match(specifier as string, /^(node:|@sessiondb\/core)/);
    // Deno's version comes from Deno itself: node:process loads Deno's Node layer (~8 ms).
    assert.ok(!specifiers.includes("node:process"), "dist imports node:process");
  });

  it("opens a store, appends and searches through the built entry point", async () => {
    const { openStore } = await import(DIST.href);
    const store = openStore(join(dir, "state.db"));
    assert.equal(store.driverName, "node:sqlite");
    store.createSession({ id: "s", source: "cli" });
    store.appendMessage("s", { role: "user", content: "hello from dist" });
    assert.equal(store.search("hello").hits.length, 1);
    store.close();
  });
});
