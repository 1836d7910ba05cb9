import { coreSourceConfig } from "../../vitest.shared.js";

// The conformance suite's paging walk over sqld took 32–38 s of 60 in CI runs where every package
// tests at once (2026-12-04): 120 s; a hang still fails.
export default coreSourceConfig(120_000);
