/** The importer cases under vitest: @sessiondb/node with its default driver. */
import { openStore } from "@sessiondb/node";
import { describe, it } from "vitest";
import { importCases } from "./import-cases.js";
import { importResumeCases } from "./import-resume-cases.js";

importCases(describe, it, `Node ${process.versions.node}`, (path) => openStore(path));
importResumeCases(describe, it, `Node ${process.versions.node}`, (path) => openStore(path));
