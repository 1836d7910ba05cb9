import { defineConfig } from "vitest/config";
import { CORE_SOURCE_ALIASES } from "../../vitest.shared.js";

/**
 * First test run, on the Node that runs npm (Node 20 here): every driver that loads in this
 * Node is tested (better-sqlite3; node:sqlite too when this Node has it). Tests run against
 * core's source and the conformance suite's, not their builds.
 */
export default defineConfig({
  resolve: {
    alias: CORE_SOURCE_ALIASES,
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The conformance suite's multi-process tests (a rebuild next to a child appender) took up
    // to 23 s of 30 in CI runs where every package tests at once (2026-12-04); a hang still fails.
    testTimeout: 60_000,
    // Hooks open stores and start child processes; vitest's 10 s default is a quiet machine's.
    hookTimeout: 60_000,
  },
});
