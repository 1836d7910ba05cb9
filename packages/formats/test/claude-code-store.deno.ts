/** The Claude Code store cases under `deno test` (node:test's describe/it): Deno's SQLite. */
import { describe, it } from "node:test";
import { openStore } from "@sessiondb/deno";
import { claudeCodeStoreCases } from "./claude-code-store-cases.ts";

claudeCodeStoreCases(describe, it, "Deno", (path) => openStore(path));
