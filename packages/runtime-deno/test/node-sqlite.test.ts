/** Core's driver contract on Deno's built-in node:sqlite (exec and open errors carry only a message). */
import { describe, it } from "node:test";
import { runDriverContract } from "@sessiondb/conformance";
import { nodeSqliteDriver } from "../src/node-sqlite.ts";
import { holdLock } from "./lock-holder.ts";

runDriverContract({
  name: "node:sqlite (Deno)",
  driverName: "node:sqlite",
  driver: nodeSqliteDriver(),
  holdLock,
  extendedCodes: { exec: false, open: false },
  describe,
  it,
});
