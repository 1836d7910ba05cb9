/**
 * Test-only: a real driver for core's own unit tests. Core has no binding of its own, so its
 * tests take the default driver of the built @sessiondb/node (turbo builds it before core's
 * tests: see turbo.json; vitest.config.ts points its @sessiondb/core imports at this source
 * tree). The adapters run the full conformance suite on every driver themselves.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveDriver } from "@sessiondb/node";
import type { SqliteConnection, SqliteDriver, SqliteStatement, SqlValue } from "../../src/driver.js";

export const testDriver: SqliteDriver = resolveDriver();

/** The test driver with every statement it prepares passed through `wrap` (to count or log them). */
export function wrappingDriver(
  wrap: (sql: string, statement: SqliteStatement) => SqliteStatement,
): SqliteDriver {
  return {
    ...testDriver,
    open(path, flags) {
      const conn = testDriver.open(path, flags);
      return {
        exec: (sql) => conn.exec(sql),
        close: () => conn.close(),
        prepare: (sql) => wrap(sql, conn.prepare(sql)),
      };
    },
  };
}

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

/** SQLite's plan for `sql` with `params` on `conn`, its details joined by " | ". (The conformance
 * suite has its own: core's tests do not reach into another package's internals.) */
export function queryPlan(conn: SqliteConnection, sql: string, ...params: SqlValue[]): string {
  return conn
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...params)
    .map((row) => String(row.detail))
    .join(" | ");
}
