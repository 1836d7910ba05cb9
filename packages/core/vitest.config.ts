import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Core's tests take their driver from the built @sessiondb/node (test/support/driver.ts); its
    // `@sessiondb/core` imports must resolve to this source tree, not to a build, or a test
    // would see two copies of every error class. The conformance suite (async-conformance.test.ts)
    // runs from its source too, for the same reason; it needs no build of its own.
    alias: [
      {
        find: /^@sessiondb\/core\/host$/,
        replacement: fileURLToPath(new URL("./src/host/node-fs.ts", import.meta.url)),
      },
      {
        find: /^@sessiondb\/core\/driver$/,
        replacement: fileURLToPath(new URL("./src/driver-entry.ts", import.meta.url)),
      },
      {
        find: /^@sessiondb\/core\/testing$/,
        replacement: fileURLToPath(new URL("./src/testing.ts", import.meta.url)),
      },
      {
        find: /^@sessiondb\/conformance$/,
        replacement: fileURLToPath(new URL("../conformance/src/index.ts", import.meta.url)),
      },
      { find: /^@sessiondb\/core$/, replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
    ],
  },
  test: {
    include: ["src/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
