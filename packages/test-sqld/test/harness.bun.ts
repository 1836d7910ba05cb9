/** The harness under `bun test`. */
import { describe, it } from "bun:test";
import { harnessCases } from "./harness-cases.js";

harnessCases(describe, it);
