/** The opencode cases under vitest: @sessiondb/node with its default driver. */
import { openStore, resolveDriver } from "@sessiondb/node";
import { describe, it } from "vitest";
import { opencodeCases } from "./opencode-cases.js";

opencodeCases(
  describe,
  it,
  `Node ${process.versions.node}`,
  (path) => openStore(path),
  () => resolveDriver(),
);
