/** The importer cases under `bun test`: bun:sqlite. */
import { describe, it } from "bun:test";
import { openStore } from "@sessiondb/bun";
import { importCases } from "./import-cases.js";
import { importResumeCases } from "./import-resume-cases.js";

importCases(describe, it, "Bun", (path) => openStore(path));
importResumeCases(describe, it, "Bun", (path) => openStore(path));
