/** The core conformance suite on Bun + bun:sqlite, under Bun's own test runner. */
import { describe, it } from "bun:test";
import { childAppender, runConformance } from "@sessiondb/conformance";
import { nodeFsHost } from "@sessiondb/core/host";
import { bunSqliteDriver } from "../src/bun-sqlite.js";

const APPENDER = new URL("./fixtures/backup-appender.ts", import.meta.url).pathname;
const appender = childAppender(({ path, sessionId, ledger }) => [
  process.execPath,
  APPENDER,
  path,
  sessionId,
  ledger,
]);

runConformance({ name: "bun:sqlite", driver: bunSqliteDriver(), host: nodeFsHost, appender, describe, it });
