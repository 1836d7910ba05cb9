import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Core's tests borrow the Node adapter's driver from source (test-support/driver.ts); its
    // `@sessiondb/core` import must resolve to this source tree, not to a build.
    alias: { "@sessiondb/core": fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
  },
  test: {
    include: ["src/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
