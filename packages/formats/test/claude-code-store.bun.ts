/** The Claude Code store cases under `bun test`: bun:sqlite. */
import { describe, it } from "bun:test";
import { openStore } from "@sessiondb/bun";
import { claudeCodeStoreCases } from "./claude-code-store-cases.js";

claudeCodeStoreCases(describe, it, "Bun", (path) => openStore(path));
