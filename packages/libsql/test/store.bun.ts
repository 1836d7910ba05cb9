/** The store cases under `bun test`. */
import { afterAll, beforeAll, describe, it } from "bun:test";
import { storeCases } from "./store-cases.js";

storeCases(describe, it, { before: beforeAll, after: afterAll });
