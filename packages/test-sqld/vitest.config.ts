import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    // Hooks start sqld: a loaded machine takes far longer than vitest's 10 s default for hooks.
    hookTimeout: 60_000,
  },
});
