/** The core conformance suite on Bun + bun:sqlite, under Bun's own test runner. */
import { describe, it } from "bun:test";
import { runConformance } from "@sessiondb/core/conformance";
import { nodeFsHost } from "@sessiondb/core/host";
import { bunSqliteDriver } from "../src/bun-sqlite.js";

runConformance({ name: "bun:sqlite", driver: bunSqliteDriver(), host: nodeFsHost, describe, it });
