/** The opencode cases under `deno test` (node:test's describe/it): Deno's SQLite. */
import { describe, it } from "node:test";
import { openStore, resolveDriver } from "@sessiondb/deno";
import { opencodeCases } from "./opencode-cases.ts";

opencodeCases(
  describe,
  it,
  "Deno",
  (path) => openStore(path),
  () => resolveDriver(),
);
