/**
 * Driver for Deno's built-in `node:sqlite` (`DatabaseSync`, Deno ≥ 2.2): core's
 * `nodeSqliteApiDriver`, shared with Node, over Deno's class. The import stays `node:sqlite` in
 * the built output, so Deno serves its own SQLite build.
 *
 * The online backup runs in a worker thread (worker-backup.ts): Deno's own runs every step
 * inside one call, and nothing else on the thread could run meanwhile.
 *
 * Deno's errors differ from Node's: a failed statement carries `errcode` (the extended result
 * code), but a failed exec or open carries only `code: "ERR_SQLITE_ERROR"` and a message with
 * the path appended; `classifyNodeSqliteError` handles both.
 */
// @ts-expect-error: @types/node before 22 (which Deno prefers when node_modules has it) lacks
// node:sqlite; the class is typed structurally by core instead.
import * as sqlite from "node:sqlite";
import {
  type NodeSqliteApiBackup,
  type NodeSqliteApiDatabaseClass,
  nodeSqliteApiDriver,
  type SqliteDriver,
} from "@sessiondb/core/driver";
import { isDirectoryPath } from "./host.js";
import { workerBackup } from "./worker-backup.js";

/** The node:sqlite driver for Deno. */
export function nodeSqliteDriver(): SqliteDriver {
  const { DatabaseSync, backup } = sqlite as unknown as {
    DatabaseSync: NodeSqliteApiDatabaseClass;
    backup?: NodeSqliteApiBackup;
  };
  return nodeSqliteApiDriver(DatabaseSync, {
    isDirectory: isDirectoryPath,
    // Deno's backup() holds the thread for the whole copy: run it in a worker (worker-backup.ts).
    backup: backup && workerBackup(backup),
  });
}
