/** The Codex store cases under `bun test`: bun:sqlite. */
import { describe, it } from "bun:test";
import { openStore } from "@sessiondb/bun";
import { codexStoreCases } from "./codex-store-cases.js";

codexStoreCases(describe, it, "Bun", (path) => openStore(path));
