import { defineConfig } from "vitest/config";

/**
 * The tests drive the built binary (dist/cli.js) as a subprocess, against stores built with the
 * built adapters and bench corpus: run `turbo run build` (or `npm test` from the root) first.
 * `testTimeout` is a backstop against a hang, not a budget: a test of several CLI calls against
 * sqld took over 60 s in a fresh-clone run with every suite testing at once on 2 cores.
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
