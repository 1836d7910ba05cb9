/** The opencode cases under `bun test`: bun:sqlite reads the database and holds the store. */
import { describe, it } from "bun:test";
import { openStore, resolveDriver } from "@sessiondb/bun";
import { opencodeCases } from "./opencode-cases.js";

opencodeCases(
  describe,
  it,
  "Bun",
  (path) => openStore(path),
  () => resolveDriver(),
);
