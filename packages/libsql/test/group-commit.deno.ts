/** The group commit cases under `deno test` (node:test's describe/it and hooks). */
import { after, before, describe, it } from "node:test";
import { groupCommitCases } from "./group-commit-cases.ts";

groupCommitCases(describe, (name, body, timeout) => it(name, { timeout }, body), { before, after });
