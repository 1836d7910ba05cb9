/** The harness under `deno test` (node:test's describe/it). */
import { describe, it } from "node:test";
import { harnessCases } from "./harness-cases.ts";

harnessCases(describe, (name, body, timeout) => it(name, { timeout }, body));
