/** The Codex store cases under `deno test` (node:test's describe/it): Deno's SQLite. */
import { describe, it } from "node:test";
import { openStore } from "@sessiondb/deno";
import { codexStoreCases } from "./codex-store-cases.ts";

codexStoreCases(describe, it, "Deno", (path) => openStore(path));
