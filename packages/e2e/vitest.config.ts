import { defineConfig } from "vitest/config";

/**
 * The e2e suites run on the Node that runs npm (Node 20) and spawn real Node, Bun and Deno
 * children. Children import the built packages (dist), so turbo builds the adapters first.
 */
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    // Each test spawns its own processes on its own files; run files one at a time so the
    // concurrency test measures contention between its own writers only.
    fileParallelism: false,
  },
});
