import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * Second test run, under Node 24 (node_modules/.bin/node, from the root's `node` dev
 * dependency): node:sqlite must be there, so its absence fails the run instead of skipping.
 * better-sqlite3 is tested too only if its native addon loads in this Node (the Node 20 build
 * does not: different ABI), otherwise it is skipped with the reason printed.
 */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      env: { SESSIONDB_REQUIRE_DRIVERS: "node:sqlite" },
    },
  }),
);
