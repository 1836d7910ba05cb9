import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Core's tests take their driver from the built @sessiondb/node (test/support/driver.ts); its
    // `@sessiondb/core` imports must resolve to this source tree, not to a build, or a test
    // would see two copies of every error class.
    alias: [
      {
        find: /^@sessiondb\/core\/host$/,
        replacement: fileURLToPath(new URL("./src/host/node-fs.ts", import.meta.url)),
      },
      {
        find: /^@sessiondb\/core\/driver$/,
        replacement: fileURLToPath(new URL("./src/driver-entry.ts", import.meta.url)),
      },
      { find: /^@sessiondb\/core$/, replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
    ],
  },
  test: {
    include: ["src/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
