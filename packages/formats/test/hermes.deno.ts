/** The Hermes importer cases under `deno test` (node:test's describe/it): Deno's SQLite. */
import { describe, it } from "node:test";
import { openStore, resolveDriver } from "@sessiondb/deno";
import { hermesCases } from "./hermes-cases.ts";

const driver = resolveDriver();
hermesCases(describe, it, "Deno", (path) => openStore(path, { driver }), driver);
