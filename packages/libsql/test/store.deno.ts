/** The store cases under `deno test` (node:test's describe/it and hooks). */
import { after, before, describe, it } from "node:test";
import { storeCases } from "./store-cases.ts";

storeCases(describe, (name, body, timeout) => it(name, { timeout }, body), { before, after });
