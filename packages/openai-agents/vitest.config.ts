import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const core = (file: string) => fileURLToPath(new URL(`../core/src/${file}`, import.meta.url));

/** Tests run against core's source (one copy of every error class), like the runtime adapters'. */
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@sessiondb\/core\/host$/, replacement: core("host/node-fs.ts") },
      { find: /^@sessiondb\/core\/driver$/, replacement: core("driver-entry.ts") },
      { find: /^@sessiondb\/core\/conformance$/, replacement: core("conformance/index.ts") },
      { find: /^@sessiondb\/core$/, replacement: core("index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
  },
});
