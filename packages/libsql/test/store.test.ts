/** The store cases under vitest (Node). */
import { afterAll, beforeAll, describe, it } from "vitest";
import { storeCases } from "./store-cases.js";

storeCases(describe, it, { before: beforeAll, after: afterAll });
