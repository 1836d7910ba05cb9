/** The Hermes importer cases under `bun test`: bun:sqlite reads the state.db. */
import { describe, it } from "bun:test";
import { openStore, resolveDriver } from "@sessiondb/bun";
import { hermesCases } from "./hermes-cases.js";

const driver = resolveDriver();
hermesCases(describe, it, "Bun", (path) => openStore(path, { driver }), driver);
