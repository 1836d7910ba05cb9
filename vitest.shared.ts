/**
 * The vitest config of the packages whose tests run against core's source (one copy of every
 * error class, whichever package's code throws it), like the runtime adapters': the
 * `@sessiondb/core` entries resolve to `packages/core/src`, and `@sessiondb/conformance` to its
 * source, whose own `@sessiondb/core` imports then resolve to the same files.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const core = (file: string) => fileURLToPath(new URL(`./packages/core/src/${file}`, import.meta.url));
const conformance = fileURLToPath(new URL("./packages/conformance/src/index.ts", import.meta.url));

export const CORE_SOURCE_ALIASES = [
  { find: /^@sessiondb\/core\/host$/, replacement: core("host/node-fs.ts") },
  { find: /^@sessiondb\/core\/driver$/, replacement: core("driver-entry.ts") },
  { find: /^@sessiondb\/core\/testing$/, replacement: core("testing.ts") },
  { find: /^@sessiondb\/conformance$/, replacement: conformance },
  { find: /^@sessiondb\/core$/, replacement: core("index.ts") },
];

/** `test/**\/*.test.ts` against core's source; `testTimeout` in ms (a hang still fails), for the
 * hooks too: they start sqld servers and open stores, which a loaded machine makes take far
 * longer than vitest's 10 s default for hooks. */
export function coreSourceConfig(testTimeout = 120_000): ReturnType<typeof defineConfig> {
  return defineConfig({
    resolve: { alias: CORE_SOURCE_ALIASES },
    test: { include: ["test/**/*.test.ts"], testTimeout, hookTimeout: testTimeout },
  });
}
