import { defineConfig } from "vitest/config";

/** The torture chamber: long, sequential, one file; every role is its own OS process. */
export default defineConfig({
  test: {
    include: ["src/chamber/**/*.chamber.ts"],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    sequence: { concurrent: false },
    reporters: ["default"],
  },
});
