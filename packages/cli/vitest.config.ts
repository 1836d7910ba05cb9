import { defineConfig } from "vitest/config";
import { WAITING_SUITE_WORKERS } from "../../vitest.shared.js";

/**
 * The tests drive the built binary (dist/cli.js) as a subprocess, against stores built with the
 * built adapters and bench corpus: run `turbo run build` (or `npm test` from the root) first.
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Almost every test waits on a child process: a file per core keeps both cores busy.
    maxWorkers: WAITING_SUITE_WORKERS,
  },
});
