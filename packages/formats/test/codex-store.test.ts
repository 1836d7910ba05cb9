/** The Codex store cases under vitest: @sessiondb/node with its default driver. */
import { openStore } from "@sessiondb/node";
import { describe, it } from "vitest";
import { codexStoreCases } from "./codex-store-cases.js";

codexStoreCases(describe, it, `Node ${process.versions.node}`, (path) => openStore(path));
