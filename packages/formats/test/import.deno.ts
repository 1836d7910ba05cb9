/** The importer cases under `deno test` (node:test's describe/it): Deno's SQLite. */
import { describe, it } from "node:test";
import { openStore } from "@sessiondb/deno";
import { importCases } from "./import-cases.ts";
import { importResumeCases } from "./import-resume-cases.ts";

importCases(describe, it, "Deno", (path) => openStore(path));
importResumeCases(describe, it, "Deno", (path) => openStore(path));
