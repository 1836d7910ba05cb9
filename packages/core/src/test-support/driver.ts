/**
 * Test-only: a real driver for core's own unit tests. Core has no binding of its own, so its
 * tests borrow the Node adapter's better-sqlite3 driver from source (the adapters run the full
 * conformance suite on every driver themselves).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { betterSqlite3Driver } from "../../../runtime-node/src/better-sqlite3.js";
import type { SqliteDriver } from "../driver.js";

export const testDriver: SqliteDriver = betterSqlite3Driver();

/** A fresh temporary directory; `cleanup()` removes it. */
export function tempDir(prefix = "sessiondb-test-"): {
  dir: string;
  file(name: string): string;
  cleanup(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    file: (name) => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
