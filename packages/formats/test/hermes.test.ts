/** The Hermes importer cases under vitest: @sessiondb/node with its default driver
 * (better-sqlite3 on Node 20, node:sqlite where better-sqlite3 is not built for the Node). */
import { openStore, resolveDriver } from "@sessiondb/node";
import { describe, it } from "vitest";
import { hermesCases } from "./hermes-cases.js";

const driver = resolveDriver();
hermesCases(
  describe,
  it,
  `Node ${process.versions.node}, ${driver.name}`,
  (path) => openStore(path, { driver }),
  driver,
);
