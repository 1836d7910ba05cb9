import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The smoke test runs every suite on every runtime present: minutes, not seconds, at worst.
    testTimeout: 170_000,
    hookTimeout: 60_000,
  },
});
