/** The group commit cases under `bun test`. */
import { afterAll, beforeAll, describe, it } from "bun:test";
import { groupCommitCases } from "./group-commit-cases.js";

groupCommitCases(describe, it, { before: beforeAll, after: afterAll });
