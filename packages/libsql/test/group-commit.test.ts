/** The group commit cases under vitest (Node). */
import { afterAll, beforeAll, describe, it } from "vitest";
import { groupCommitCases } from "./group-commit-cases.js";

groupCommitCases(describe, it, { before: beforeAll, after: afterAll });
