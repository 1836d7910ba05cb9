import { defineConfig } from "vitest/config";

/**
 * The tests drive the built binary (dist/cli.js) as a subprocess, against stores built with the
 * built adapters and bench corpus: run `turbo run build` (or `npm test` from the root) first.
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
