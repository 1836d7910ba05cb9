/** The Claude Code store cases under vitest: @sessiondb/node with its default driver. */
import { openStore } from "@sessiondb/node";
import { describe, it } from "vitest";
import { claudeCodeStoreCases } from "./claude-code-store-cases.js";

claudeCodeStoreCases(describe, it, `Node ${process.versions.node}`, (path) => openStore(path));
