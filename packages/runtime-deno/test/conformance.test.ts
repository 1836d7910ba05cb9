/**
 * The core conformance suite on Deno + node:sqlite, under `deno test` (node:test's describe/it),
 * with the adapter's host — run with read/write permissions only (plus env for the temp dir).
 */
import { describe, it } from "node:test";
import { runConformance } from "@sessiondb/conformance";
import { denoHost } from "../src/host.ts";
import { nodeSqliteDriver } from "../src/node-sqlite.ts";
import { appender } from "./backup-appender.ts";

runConformance({
  name: "node:sqlite (Deno)",
  driver: nodeSqliteDriver(),
  host: denoHost,
  appender,
  describe,
  it,
});
