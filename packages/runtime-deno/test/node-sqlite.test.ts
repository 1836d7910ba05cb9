/** The driver contract for Deno's built-in node:sqlite. */
import { nodeSqliteDriver } from "../src/node-sqlite.ts";
import { driverContract } from "./driver-contract.ts";

driverContract("node:sqlite (Deno)", nodeSqliteDriver(), { extendedCodes: true });
